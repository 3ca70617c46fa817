// InterpretHealth for Argo Workflow. Unhealthy drives application failover (which re-runs the workflow
// from scratch elsewhere), so only unrequested failures and "never picked up" count as unhealthy.
import { isJsonObject, type JsonObject, type KObject } from '../../../../src/interpreter/types.ts';

const HEALTHY_PHASES = new Set(['Pending', 'Running', 'Succeeded']);
const FAILED_PHASES = new Set(['Failed', 'Error']);

/** `argo stop`/`argo terminate` write `spec.shutdown`; older versions terminated with activeDeadlineSeconds 0. */
export function endWasRequested(spec: JsonObject): boolean {
  return (typeof spec.shutdown === 'string' && spec.shutdown !== '') || spec.activeDeadlineSeconds === 0;
}

/**
 * - no status or phase "" → false: no Argo controller has picked the workflow up (fail over after
 *   tolerationSeconds);
 * - Pending, Running (suspended too), Succeeded → true;
 * - Failed, Error → false, unless the end was requested (a terminated workflow must not be re-run);
 * - any other phase → false, as Karmada's built-in.
 */
export function interpretHealth(observed: KObject): boolean {
  const phase = isJsonObject(observed.status) ? observed.status.phase : undefined;
  if (typeof phase !== 'string') return false;
  if (HEALTHY_PHASES.has(phase)) return true;
  if (FAILED_PHASES.has(phase)) return endWasRequested(isJsonObject(observed.spec) ? observed.spec : {});
  return false;
}
