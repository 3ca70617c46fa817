// Kruise's own reading of a CloneSet partition, needed to judge rollout progress when the member's
// status does not carry expectedUpdatedReplicas (it is omitempty).
import { scaledValueFromIntOrPercent } from '../../../src/k8s/replicas.ts';

/**
 * Kruise CalculatePartitionReplicas: integer as is; percentage of replicas rounded up, lowered by one
 * when it would keep every pod old (for anything but "100%" with more than one replica); clamped to
 * [0, replicas]. Unset or unparsable → 0.
 */
export function cloneSetPartitionReplicas(partition: unknown, replicas: number): number {
  const value = scaledValueFromIntOrPercent(partition, replicas, true);
  if (value === undefined) return 0;
  let p = value;
  if (replicas > 1 && p === replicas && typeof partition === 'string' && partition !== '100%') p = replicas - 1;
  return Math.max(0, Math.min(p, replicas));
}
