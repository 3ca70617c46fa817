// ReviseReplica and Retain for Argo Workflow: what Karmada may change in the member copy, and which
// member-side values survive Karmada's re-apply (kinds.md §4.3, §6).
import type { KObject } from '../../../../src/interpreter/types.ts';
import { isObject } from './templates.ts';

/**
 * Identity. `spec.parallelism` limits the workflow's own concurrent pods; it is not a replica count and
 * must not be set to a cluster's share (Karmada's built-in does, turning "unlimited" into 1).
 */
export function reviseReplica(workflow: KObject, _replicas: number): KObject {
  return workflow;
}

/** Absent, null and (for the string `shutdown`) empty all mean "not set" to Argo. */
function isUnset(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/**
 * desired = the Work manifest, observed = the live member Workflow.
 * - `status` always from the member: the Workflow CRD has no status subresource, so an update without it
 *   would wipe the controller's progress.
 * - `spec.suspend`, `spec.shutdown`: an explicit value in the template wins (control-plane suspend, resume
 *   via `false`, stop); when the template leaves them unset the member's value stays, so `argo suspend`,
 *   `argo stop` and `argo terminate` run in the member are not undone by drift correction.
 * - `spec.activeDeadlineSeconds: 0` (the old terminate mechanism) stays when the template does not set it.
 */
export function retain(desired: KObject, observed: KObject): KObject {
  const observedSpec: Record<string, any> = isObject(observed.spec) ? observed.spec : {};
  const spec: Record<string, any> = isObject(desired.spec) ? desired.spec : {};
  const kept: Record<string, unknown> = {};
  for (const field of ['suspend', 'shutdown'] as const) {
    if (isUnset(spec[field]) && !isUnset(observedSpec[field])) kept[field] = observedSpec[field];
  }
  if (isUnset(spec.activeDeadlineSeconds) && observedSpec.activeDeadlineSeconds === 0) kept.activeDeadlineSeconds = 0;
  if (Object.keys(kept).length > 0) desired.spec = Object.assign(spec, kept);

  if (observed.status !== undefined && observed.status !== null) desired.status = observed.status;
  return desired;
}
