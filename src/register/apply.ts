// Create-or-update of the ResourceInterpreterWebhookConfiguration in karmada-apiserver. It is a
// cluster-scoped custom resource (config.karmada.io/v1alpha1, resourceinterpreterwebhookconfigurations),
// so the generic CustomObjectsApi of @kubernetes/client-node is all we need: GET, then POST when it is
// missing or PUT (with the resourceVersion we read) when it differs. A 409 means another replica won
// the race; we read again and retry.
import { isDeepStrictEqual } from 'node:util';
import { ApiException, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';

export const GROUP = 'config.karmada.io';
export const VERSION = 'v1alpha1';
export const PLURAL = 'resourceinterpreterwebhookconfigurations';

export type ApplyResult = 'created' | 'updated' | 'unchanged';

export interface WebhookConfigurationObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; resourceVersion?: string; [key: string]: unknown };
  webhooks: unknown[];
  [key: string]: unknown;
}

export function loadKubeConfig(path: string, context?: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(path);
  if (context) kubeConfig.setCurrentContext(context);
  if (!kubeConfig.getCurrentCluster()) throw new Error(`${path}: no current cluster (set current-context or pass --context)`);
  return kubeConfig;
}

const statusOf = (error: unknown): number | undefined => (error instanceof ApiException ? error.code : undefined);

export async function applyWebhookConfiguration(kubeConfig: KubeConfig, desired: WebhookConfigurationObject, attempts = 3): Promise<ApplyResult> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const name = desired.metadata.name;
  for (let attempt = 1; ; attempt++) {
    try {
      let existing: WebhookConfigurationObject | undefined;
      try {
        existing = await api.getClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, name });
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
      }
      if (!existing) {
        await api.createClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, body: desired });
        return 'created';
      }
      // Only webhooks is ours; labels and annotations others added are kept.
      if (isDeepStrictEqual(existing.webhooks, desired.webhooks)) return 'unchanged';
      const metadata = { ...existing.metadata, ...desired.metadata, resourceVersion: existing.metadata.resourceVersion };
      await api.replaceClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, name, body: { ...existing, ...desired, metadata } });
      return 'updated';
    } catch (error) {
      const status = statusOf(error);
      if ((status === 409 || status === 404) && attempt < attempts) continue; // lost a race (or it was deleted meanwhile): read again
      throw describe(error, name);
    }
  }
}

/** Turns client-node's ApiException (whose message is the whole response) into one readable line. */
function describe(error: unknown, name: string): Error {
  if (!(error instanceof ApiException)) return error as Error;
  let message = '';
  try {
    const body = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
    message = body?.message ?? '';
  } catch {
    message = String(error.body).slice(0, 300);
  }
  const hint = error.code === 404
    ? ' (no such resource: is the kubeconfig pointing at karmada-apiserver rather than the host cluster?)'
    : error.code === 403 ? ' (the kubeconfig user needs get, create and update on resourceinterpreterwebhookconfigurations.config.karmada.io; see manifests/karmada/register-rbac.yaml)' : '';
  return new Error(`karmada-apiserver answered HTTP ${error.code} for ResourceInterpreterWebhookConfiguration ${name}: ${message || 'no message'}${hint}`);
}
