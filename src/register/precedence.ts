// Karmada asks its interpreters in a fixed order for every operation: ResourceInterpreterCustomizations
// applied to karmada-apiserver first, then interpreter webhooks, then its bundled third-party Lua, then
// its native defaults; the first that has a hook for the kind and operation answers (karmada-io/karmada
// pkg/resourceinterpreter/interpreter.go: configurableInterpreter before customizedInterpreter in
// GetReplicas, ReviseReplica, Retain, AggregateStatus, ReflectStatus, InterpretHealth, GetDependencies).
// A RIC has a hook for an operation when its rule for it has a non-empty luaScript
// (pkg/resourceinterpreter/customized/declarative/configurable.go, HookEnabled). So a RIC in
// karmada-apiserver for a kind we serve silently takes those operations away from us; we list them.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Operation } from '../interpreter/types.ts';
import type { ServedKind } from '../interpreter/registry.ts';
import { RIC_KIND } from '../customizations/parse.ts';
import { CUSTOMIZATION_RULES } from '../lua/operations.ts';
import { describeApiError, GROUP, VERSION } from './apply.ts';

export const RIC_PLURAL = 'resourceinterpretercustomizations';
/** Page size of the list; karmada-apiserver is asked for the next page while it has one. */
const PAGE = 250;

export interface ShadowingCustomization {
  /** metadata.name of the ResourceInterpreterCustomization (cluster-scoped). */
  name: string;
  apiVersion: string;
  kind: string;
  /** Operations we serve for that kind that it answers first. */
  operations: Operation[];
}

/** The RICs among `customizations` that answer operations we serve, by name. */
export function shadowingCustomizations(customizations: unknown[], served: ServedKind[]): ShadowingCustomization[] {
  const found: ShadowingCustomization[] = [];
  for (const item of customizations) {
    const ric = item as {
      metadata?: { name?: unknown };
      spec?: { target?: { apiVersion?: unknown; kind?: unknown }; customizations?: Record<string, unknown> };
    };
    const target = ric.spec?.target;
    const ours = served.find((s) => s.apiVersion === target?.apiVersion && s.kind === target?.kind);
    if (!ours) continue;
    const rules = ric.spec?.customizations ?? {};
    const operations = CUSTOMIZATION_RULES.filter(({ field, operation }) => {
      const script = (rules[field] as { luaScript?: unknown } | undefined)?.luaScript;
      return typeof script === 'string' && script !== '' && ours.operations.includes(operation);
    }).map((rule) => rule.operation);
    if (operations.length > 0) found.push({ name: String(ric.metadata?.name ?? ''), apiVersion: ours.apiVersion, kind: ours.kind, operations });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** Lists every ResourceInterpreterCustomization in karmada-apiserver and keeps those that shadow us. */
export async function findShadowingCustomizations(kubeConfig: KubeConfig, served: ServedKind[]): Promise<ShadowingCustomization[]> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const items: unknown[] = [];
  let continueToken: string | undefined;
  try {
    do {
      const page = (await api.listClusterCustomObject({ group: GROUP, version: VERSION, plural: RIC_PLURAL, limit: PAGE, _continue: continueToken })) as {
        items?: unknown[];
        metadata?: { _continue?: string; continue?: string };
      };
      items.push(...(page.items ?? []));
      continueToken = page.metadata?.continue || page.metadata?._continue || undefined;
    } while (continueToken);
  } catch (error) {
    throw describeApiError(
      error,
      `the list of ${RIC_KIND}s`,
      'list on resourceinterpretercustomizations.config.karmada.io',
      kubeConfig.getCurrentCluster()?.server,
    );
  }
  return shadowingCustomizations(items, served);
}

/** kubectl's flags for the API server a registration used, for the command the warning suggests. */
export function kubectlFlags(source: { kubeconfig?: string }, context: string): string {
  return `${source.kubeconfig ? ` --kubeconfig ${source.kubeconfig}` : ''} --context ${context}`;
}

/** The warning, with what to do; empty when nothing shadows us. `flags` come from kubectlFlags(). */
export function shadowWarning(shadowing: ShadowingCustomization[], flags = ''): string {
  if (shadowing.length === 0) return '';
  const field = (operation: Operation) => CUSTOMIZATION_RULES.find((r) => r.operation === operation)!.field;
  const lines = shadowing.map(
    (s) => `  ${RIC_KIND} ${s.name} answers ${s.kind} (${s.apiVersion}): ${s.operations.map((o) => `${o} (${field(o)})`).join(', ')}`,
  );
  return [
    `${RIC_KIND}s in karmada-apiserver take precedence over any interpreter webhook, so Karmada will not call this webhook for:`,
    ...lines,
    'To let the webhook answer, delete them from karmada-apiserver' +
      ` (kubectl${flags} delete resourceinterpretercustomization ${shadowing.map((s) => s.name).join(' ')})` +
      ' or remove the rules named in parentheses from them; whatever a customization keeps, Karmada goes on running instead of asking the webhook.',
  ].join('\n');
}
