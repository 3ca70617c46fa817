// The ResourceInterpreterWebhookConfiguration in karmada-apiserver, written with server-side apply: one
// PATCH of the whole object as application/apply-patch+yaml under our field manager, as
// `kubectl apply --server-side` sends it (kubectl pkg/cmd/apply/apply.go). The API server creates the
// object or changes only the fields we own; labels and annotations others set are theirs and stay.
// We force conflicts: the object is ours by name, and Kubernetes' guidance for a controller applying
// an object it owns is to always force, so an earlier `kubectl apply` of the generated file or an older
// get-then-put of this tool hands the `webhooks` list over instead of failing.
// A GET before the apply only tells created / updated / unchanged apart for logs and metrics.
import { ApiException, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';

export const GROUP = 'config.karmada.io';
export const VERSION = 'v1alpha1';
export const PLURAL = 'resourceinterpreterwebhookconfigurations';
/** metadata.managedFields[].manager of what we apply. */
export const FIELD_MANAGER = 'karmada-interpreter-webhook';

export type ApplyResult = 'created' | 'updated' | 'unchanged';

export interface WebhookConfigurationObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; resourceVersion?: string; [key: string]: unknown };
  webhooks: unknown[];
  [key: string]: unknown;
}

export const statusOf = (error: unknown): number | undefined => (error instanceof ApiException ? error.code : undefined);

export async function applyWebhookConfiguration(kubeConfig: KubeConfig, desired: WebhookConfigurationObject, attempts = 3): Promise<ApplyResult> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const name = desired.metadata.name;
  const target = { group: GROUP, version: VERSION, plural: PLURAL, name };
  for (let attempt = 1; ; attempt++) {
    try {
      let before: string | undefined;
      try {
        before = ((await api.getClusterCustomObject(target)) as WebhookConfigurationObject).metadata.resourceVersion;
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
      }
      const applied = (await api.patchClusterCustomObject(
        { ...target, body: desired, fieldManager: FIELD_MANAGER, force: true },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      )) as WebhookConfigurationObject;
      if (before === undefined) return 'created';
      // The API server keeps the resourceVersion when an apply changes nothing.
      return applied.metadata.resourceVersion === before ? 'unchanged' : 'updated';
    } catch (error) {
      // 409: another replica created it between our GET and apply, or a storage conflict; apply again.
      if (statusOf(error) === 409 && attempt < attempts) continue;
      throw describeApiError(
        error,
        `ResourceInterpreterWebhookConfiguration ${name}`,
        'get, create and patch on resourceinterpreterwebhookconfigurations.config.karmada.io',
        kubeConfig.getCurrentCluster()?.server,
      );
    }
  }
}

/**
 * Turns client-node's ApiException (whose message is the whole response) into one readable line, and
 * fetch's "fetch failed" (no answer at all) into one naming the API server's URL and the cause
 * (connect ECONNREFUSED 127.0.0.1:6443, getaddrinfo ENOTFOUND host, a TLS error).
 */
export function describeApiError(error: unknown, what: string, rights: string, server?: string): Error {
  if (!(error instanceof ApiException)) return describeUnreachable(error, what, server);
  let message: string;
  try {
    const body = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
    message = body?.message ?? '';
  } catch {
    message = String(error.body).slice(0, 300);
  }
  const hint =
    error.code === 404
      ? ' (no such resource: is the kubeconfig pointing at karmada-apiserver rather than the host cluster?)'
      : error.code === 403
        ? ` (the kubeconfig user needs ${rights}; see manifests/karmada/register-rbac.yaml)`
        : '';
  return new Error(`karmada-apiserver answered HTTP ${error.code} for ${what}: ${message || 'no message'}${hint}`);
}

/** fetch's TypeError("fetch failed") says nothing; its cause (a system or TLS error) says why. */
function describeUnreachable(error: unknown, what: string, server: string | undefined): Error {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (!(error instanceof TypeError) || !(cause instanceof Error)) return error as Error;
  const code = (cause as NodeJS.ErrnoException).code;
  const reason = code && !cause.message.includes(code) ? `${cause.message} (${code})` : cause.message;
  return new Error(`cannot reach karmada-apiserver at ${server ?? 'the kubeconfig server'} for ${what}: ${reason}`, { cause: error });
}
