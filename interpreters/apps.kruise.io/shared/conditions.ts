// Merging member conditions into one list for the template, naming the clusters behind each one, so
// `kubectl get -o yaml` on the control plane shows which member is failing and why.
import { isJsonObject, type JsonObject } from '../../../src/interpreter/types.ts';

export interface MemberConditions {
  clusterName: string;
  conditions: unknown;
}

/**
 * How bad a condition status is, lower = worse. Kruise's problem conditions are named Failed*
 * (FailedScale, FailedUpdate, FailedCreatePod, FailedUpdatePod): for those "True" is bad; for the
 * others (Progressing, Ready, ...) "False" is bad. Unknown sits in between.
 */
function severity(type: string, status: unknown): number {
  const problemType = type.startsWith('Failed');
  if (status === (problemType ? 'True' : 'False')) return 0;
  if (status === (problemType ? 'False' : 'True')) return 2;
  return 1;
}

const latest = (values: unknown[]): string | undefined =>
  values
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .sort()
    .at(-1); // RFC 3339 UTC sorts as text

/**
 * One condition per type, in order of first appearance: the worst status any member reports, the
 * reason of the first member reporting it, the messages of all those members as "cluster: message"
 * joined by "; ", and their latest transition/update times. Returns undefined when no member reports
 * conditions (the field is then left out).
 */
export function mergeConditions(members: MemberConditions[]): JsonObject[] | undefined {
  const byType = new Map<string, Array<{ clusterName: string; condition: JsonObject }>>();
  for (const { clusterName, conditions } of members) {
    if (!Array.isArray(conditions)) continue;
    for (const condition of conditions) {
      if (!isJsonObject(condition) || typeof condition.type !== 'string') continue;
      const list = byType.get(condition.type) ?? [];
      list.push({ clusterName, condition });
      byType.set(condition.type, list);
    }
  }
  if (byType.size === 0) return undefined;
  const merged: JsonObject[] = [];
  for (const [type, reports] of byType) {
    // A loop, not Math.min(...list): spreading a request-sized list overflows the call stack.
    let worst = Infinity;
    for (const r of reports) worst = Math.min(worst, severity(type, r.condition.status));
    const chosen = reports.filter((r) => severity(type, r.condition.status) === worst);
    const out: JsonObject = { type, status: chosen[0]!.condition.status };
    const reason = chosen.map((r) => r.condition.reason).find((v) => typeof v === 'string' && v !== '');
    if (reason !== undefined) out.reason = reason;
    const message = chosen
      .filter((r) => typeof r.condition.message === 'string' && r.condition.message !== '')
      .map((r) => `${r.clusterName}: ${r.condition.message}`)
      .join('; ');
    if (message !== '') out.message = message;
    const transition = latest(chosen.map((r) => r.condition.lastTransitionTime));
    if (transition !== undefined) out.lastTransitionTime = transition;
    const update = latest(chosen.map((r) => r.condition.lastUpdateTime));
    if (update !== undefined) out.lastUpdateTime = update;
    merged.push(out);
  }
  return merged;
}
