// Proportional splitting of replica-related settings for ReviseReplica. Karmada tells a ReviseReplica
// hook only the template (global total T) and one member's share r, never the whole allocation
// (karmada-io/karmada#3159), so a global setting can only be split by local arithmetic. The rounding
// direction is chosen so that the members together never do more than the global setting allows.

/** An IntOrString value as it appears in JSON: a number, or a string such as "25%". */
export type IntOrString = number | string;

const PERCENT = /^(\d+)%$/;

/** True for a JSON integer (IntOrString of type Int). */
export const isIntValue = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** The percentage of a "NN%" string, or undefined for anything else. */
export function percentOf(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const m = PERCENT.exec(v);
  return m ? Number(m[1]) : undefined;
}

/**
 * intstr.GetScaledValueFromIntOrPercent: an integer as is, "NN%" of `total` rounded up or down,
 * undefined for anything else (Kubernetes returns an error there). Hand-written because no JS
 * library reproduces apimachinery's IntOrString rules.
 */
export function scaledValueFromIntOrPercent(v: unknown, total: number, roundUp: boolean): number | undefined {
  if (isIntValue(v)) return v;
  const pct = percentOf(v);
  if (pct === undefined) return undefined;
  const exact = (pct * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/**
 * A member's share of a count of pods to keep back (a partition): `min(r, ceil(min(P, T) * r / T))`.
 * Rounding up means the members together keep at least P pods back, i.e. never update more than the
 * global setting allows; the sum can exceed P by at most (number of clusters - 1).
 * Percentages and anything that is not a non-negative integer are returned unchanged: a percentage
 * applied by each member to its own share is proportional by construction.
 */
export function splitKeepBack(value: unknown, globalReplicas: number, localReplicas: number): unknown {
  if (!isIntValue(value) || value < 0 || globalReplicas <= 0) return value;
  const p = Math.min(value, globalReplicas);
  return Math.min(localReplicas, Math.ceil((p * localReplicas) / globalReplicas));
}

/**
 * A member's share of a budget of pods that may be unavailable or surged at once:
 * `0` stays `0` (it is a deliberate "none"), otherwise `max(1, floor(min(m, T) * r / T))`.
 * Rounding down keeps the members within the global budget; the floor of 1 keeps a rollout able to
 * progress (Kruise rejects maxUnavailable and maxSurge both below 1). Clamping m to T first changes no
 * meaning (a budget of T or more already means "all at once") but keeps the result within the share.
 * Percentages and non-integers are returned unchanged.
 */
export function splitBudget(value: unknown, globalReplicas: number, localReplicas: number): unknown {
  if (!isIntValue(value) || value <= 0 || globalReplicas <= 0) return value;
  const m = Math.min(value, globalReplicas);
  return Math.max(1, Math.floor((m * localReplicas) / globalReplicas));
}
