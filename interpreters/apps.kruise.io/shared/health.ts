// Health of one member's Kruise workload. Karmada turns "unhealthy" into application failover, so a
// rollout that is held on purpose (paused, OnDelete, stopped at a partition) must read as healthy;
// what matters is that the controller has seen the spec, is not stuck, and every desired pod serves.
import { isJsonObject, type JsonObject, type KObject } from '../../../src/interpreter/types.ts';
import { intOr0, specReplicas } from './fields.ts';

/** Kruise (v1.9+) reports a stuck rollout like a Deployment does. */
function progressDeadlineExceeded(conditions: unknown): boolean {
  return Array.isArray(conditions) && conditions.some((c) => isJsonObject(c) && c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded');
}

/**
 * @param expectedUpdated how many pods the rollout should have updated by now, or undefined when the
 *   rollout is deliberately held (then completeness is not judged).
 */
export function kruiseHealthy(observed: KObject, expectedUpdated: (status: JsonObject, replicas: number) => number | undefined): boolean {
  const status = observed.status;
  if (!isJsonObject(status)) return false;
  const generation = intOr0(isJsonObject(observed.metadata) ? observed.metadata.generation : undefined);
  if (intOr0(status.observedGeneration) < generation) return false;
  if (progressDeadlineExceeded(status.conditions)) return false;
  const replicas = specReplicas(observed);
  const expected = expectedUpdated(status, replicas);
  if (expected !== undefined && intOr0(status.updatedReplicas) < expected) return false;
  // All desired pods serving, old or new: stricter than the native `available >= updated` about old
  // pods, but a deliberate partition no longer counts against the workload.
  return intOr0(status.availableReplicas) >= replicas;
}
