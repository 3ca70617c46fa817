// InterpretStatus and AggregateStatus for Kruise workloads. Both kinds report the same family of
// counters, revisions and conditions; a profile names the counters each kind has.
import { type AggregatedStatusItem, isJsonObject, type JsonObject, type KObject } from '../../../src/interpreter/types.ts';
import { mergeConditions } from './conditions.ts';
import { intOr0, stringOrEmpty } from './fields.ts';
import { aggregatedObservedGeneration, generationFields } from './generation.ts';
import { formatLabelSelector } from './label-selector.ts';

export interface StatusProfile {
  /** Pod counters: reflected even when 0, summed across members, always written. */
  counters: readonly string[];
  /** Advanced StatefulSet reports per-claim-template counters in status.volumeClaims. */
  volumeClaims: boolean;
}

const STRING_FIELDS = ['updateRevision', 'currentRevision', 'labelSelector'] as const;

/**
 * The member status as Karmada should record it. Every counter and string is always present (0 / ""),
 * because state-preservation JSONPaths fail on a missing key and a failing rule blocks the failover
 * it belongs to; Kruise omits several of them when 0 (omitempty).
 */
export function reflectKruiseStatus(observed: KObject, profile: StatusProfile): JsonObject {
  const status = isJsonObject(observed.status) ? observed.status : {};
  const out: JsonObject = {};
  for (const counter of profile.counters) out[counter] = intOr0(status[counter]);
  out.collisionCount = intOr0(status.collisionCount);
  out.observedGeneration = intOr0(status.observedGeneration);
  for (const field of STRING_FIELDS) out[field] = stringOrEmpty(status[field]);
  if (Array.isArray(status.conditions) && status.conditions.length > 0) out.conditions = status.conditions;
  if (profile.volumeClaims && Array.isArray(status.volumeClaims) && status.volumeClaims.length > 0) {
    out.volumeClaims = status.volumeClaims;
  }
  return Object.assign(out, generationFields(observed));
}

/** The value every reporting member agrees on, else "" (members differ, or nobody reports one). */
function unanimous(values: unknown[]): string {
  const reported = new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''));
  return reported.size === 1 ? [...reported][0]! : '';
}

/** status.volumeClaims merged by volumeClaimName (first-appearance order), counters summed. */
function mergeVolumeClaims(statuses: JsonObject[]): JsonObject[] | undefined {
  const byName = new Map<string, JsonObject>();
  for (const status of statuses) {
    if (!Array.isArray(status.volumeClaims)) continue;
    for (const claim of status.volumeClaims) {
      if (!isJsonObject(claim) || typeof claim.volumeClaimName !== 'string') continue;
      const sum = byName.get(claim.volumeClaimName) ?? { volumeClaimName: claim.volumeClaimName, compatibleReplicas: 0, compatibleReadyReplicas: 0 };
      sum.compatibleReplicas += intOr0(claim.compatibleReplicas);
      sum.compatibleReadyReplicas += intOr0(claim.compatibleReadyReplicas);
      byName.set(claim.volumeClaimName, sum);
    }
  }
  return byName.size > 0 ? [...byName.values()] : undefined;
}

/**
 * The template's status, rebuilt from the members' reflected statuses. It depends only on the items,
 * the template generation and the previous observedGeneration, so running it again on its own output
 * gives the same object (Karmada only writes when status changed). `items` undefined (Karmada omits an
 * empty list) and [] are the same: nothing propagated yet.
 */
export function aggregateKruiseStatus(template: KObject, items: AggregatedStatusItem[] | undefined, profile: StatusProfile): KObject {
  const list = items ?? [];
  const reports = list.filter((item) => isJsonObject(item.status)) as Array<AggregatedStatusItem & { status: JsonObject }>;
  const statuses = reports.map((item) => item.status);
  const status: JsonObject = {};

  const observedGeneration = aggregatedObservedGeneration(template, list);
  if (observedGeneration !== undefined) status.observedGeneration = observedGeneration;
  for (const counter of profile.counters) status[counter] = statuses.reduce((sum, s) => sum + intOr0(s[counter]), 0);

  // OverridePolicies that touch the pod template give each cluster its own revision hash; any one
  // member's value (the built-in's "last wins") would be arbitrary, so disagreement reads as "".
  status.updateRevision = unanimous(statuses.map((s) => s.updateRevision));
  status.currentRevision = unanimous(statuses.map((s) => s.currentRevision));
  // The scale subresource (kubectl scale, FederatedHPA) reads labelSelector; the template's own
  // selector fills it before any member has reported.
  status.labelSelector =
    statuses.map((s) => s.labelSelector).find((v): v is string => typeof v === 'string' && v !== '') ??
    formatLabelSelector(isJsonObject(template.spec) ? template.spec.selector : undefined);

  // A loop, not Math.max(...list): spreading a request-sized list overflows the call stack.
  let collisionCount: number | undefined;
  for (const s of statuses)
    if (Number.isInteger(s.collisionCount) && (collisionCount === undefined || s.collisionCount > collisionCount)) collisionCount = s.collisionCount;
  if (collisionCount !== undefined) status.collisionCount = collisionCount;
  const conditions = mergeConditions(reports.map((item) => ({ clusterName: item.clusterName, conditions: item.status.conditions })));
  if (conditions !== undefined) status.conditions = conditions;
  if (profile.volumeClaims) {
    const volumeClaims = mergeVolumeClaims(statuses);
    if (volumeClaims !== undefined) status.volumeClaims = volumeClaims;
  }

  template.status = status;
  return template;
}
