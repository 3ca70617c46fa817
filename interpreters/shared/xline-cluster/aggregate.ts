// AggregateStatus: one status for the resource template from every member cluster's reflected
// status, naming the clusters that are failing, not applied, silent or behind the template's
// generation, plus whether the placement survives losing a cluster. Only values every cluster agrees
// on are reported as such.
import type { AggregatedStatusItem, JsonObject, KObject } from '../../../src/interpreter/types.ts';
import type { Reported, XlineApi } from './api.ts';
import { placementVerdict } from './quorum.ts';
import { isCount } from './values.ts';

interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export const PLACEMENT_CONDITION = 'ClusterLossTolerant';

/**
 * Karmada's native rule (pkg/resourceinterpreter/default/native/aggregatestatus.go): a member runs the
 * template's latest spec only when its resourceTemplateGeneration (0 when unknown) has reached the
 * template's metadata.generation. Undefined when it has; otherwise a description of the lag.
 */
function templateLag(status: JsonObject, templateGeneration: number): string | undefined {
  const memberGeneration = isCount(status.resourceTemplateGeneration) ? status.resourceTemplateGeneration : 0;
  if (memberGeneration >= templateGeneration) return undefined;
  const runs = isCount(status.resourceTemplateGeneration) ? `template generation ${memberGeneration}` : 'an unknown template generation';
  return `runs ${runs}, the template is at ${templateGeneration}`;
}

export function aggregateStatus(api: XlineApi, obj: KObject, items: AggregatedStatusItem[] | undefined): KObject {
  if (!items || items.length === 0) return obj;
  const templateGeneration = isCount(obj.metadata?.generation) ? obj.metadata.generation : 0;
  const sorted = [...items].sort((a, b) => (a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0));
  const reported: Reported[] = [];
  const problems: string[] = [];
  const details: string[] = [];
  const degraded: string[] = [];
  let everyClusterCurrent = true;
  for (const item of sorted) {
    const cluster = item.clusterName;
    if (item.applied !== true) {
      problems.push(`${cluster} not applied`);
      details.push(`${cluster}: not applied${item.appliedMessage ? `: ${item.appliedMessage}` : ''}`);
      continue;
    }
    if (!item.status || typeof item.status !== 'object') {
      problems.push(`${cluster} has not reported a status`);
      details.push(`${cluster}: no status reported yet`);
      continue;
    }
    reported.push({ cluster, status: item.status });
    const verdict = api.verdict(item.status);
    const lag = templateLag(item.status, templateGeneration);
    if (lag !== undefined) everyClusterCurrent = false;
    if (!verdict.healthy) {
      problems.push(`${cluster} ${verdict.problem}`);
      details.push(`${cluster}: ${verdict.detail || verdict.problem}`);
    } else if (lag !== undefined && api.staleTemplate === 'problem') {
      problems.push(`${cluster} has not received the latest template`);
      details.push(`${cluster}: ${lag}`);
    } else if (verdict.degraded) degraded.push(`${cluster} degraded: ${verdict.degraded}`);
    if (verdict.healthy && lag !== undefined && api.staleTemplate === 'note') degraded.push(`${cluster} ${lag}`);
  }

  const status: Record<string, unknown> = api.aggregate(reported, {
    everyClusterReported: reported.length === sorted.length,
    everyClusterCurrent,
    details,
  });
  const conditions: Condition[] = [healthCondition(api, problems, degraded, api.summary(reported), sorted.length)];
  const placed = reported.filter((r) => isCount(r.status[api.sizeField]) && r.status[api.sizeField] > 0);
  if (placed.length > 0) {
    const verdict = placementVerdict(
      placed.map((r) => ({ cluster: r.cluster, members: r.status[api.sizeField] })),
      obj.spec?.[api.sizeField],
    );
    conditions.push({ type: PLACEMENT_CONDITION, status: verdict.survivesClusterLoss ? 'True' : 'False', reason: verdict.reason, message: verdict.message });
  }
  status.conditions = conditions;
  obj.status = status;
  return obj;
}

function healthCondition(api: XlineApi, problems: string[], degraded: string[], summary: string | undefined, clusters: number): Condition {
  const ok = problems.length === 0;
  const head = summary ?? (ok ? `${clusters}/${clusters} member clusters reconciled` : undefined);
  const message = [head, ...problems, ...degraded].filter(Boolean).join('; ');
  const { type, trueReason, falseReason } = api.healthCondition;
  return { type, status: ok ? 'True' : 'False', reason: ok ? trueReason : falseReason, message };
}
