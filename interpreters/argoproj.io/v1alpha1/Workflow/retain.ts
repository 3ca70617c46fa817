// ReviseReplica and Retain for Argo Workflow: what Karmada may change in the member copy, and which
// member-side values survive Karmada's re-apply.
import type { KObject } from '../../../../src/interpreter/types.ts';
import { recordTemplateFields, retainMemberOwnedFields, type MemberOwnedField } from '../../../shared/managed-fields.ts';

/** Absent, null and (for the string `shutdown`) empty all mean "not set" to Argo. */
const isSet = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

/**
 * Fields either side may own. `argo suspend`/`argo resume` set and delete spec.suspend (ResumeWorkflow
 * sets it to nil), `argo stop`/`terminate` set spec.shutdown and `retry`/`resubmit` clear it, older
 * versions terminated with activeDeadlineSeconds 0 — in the member or on the control plane.
 */
export const MEMBER_OWNED_FIELDS: readonly MemberOwnedField[] = [
  { name: 'suspend', templateSets: isSet, memberKeeps: isSet },
  { name: 'shutdown', templateSets: isSet, memberKeeps: isSet },
  { name: 'activeDeadlineSeconds', templateSets: isSet, memberKeeps: (value) => value === 0 },
];

/**
 * Leaves the workflow as it is: `spec.parallelism` limits the workflow's own concurrent pods; it is not a
 * replica count and must not be set to a cluster's share (Karmada's built-in does, turning "unlimited"
 * into 1). It only records which member-owned fields the template sets (managed-fields.ts), so the
 * member object carries that record from its creation on.
 */
export function reviseReplica(workflow: KObject, _replicas: number): KObject {
  return recordTemplateFields(workflow, MEMBER_OWNED_FIELDS);
}

/**
 * desired = the Work manifest, observed = the live member Workflow.
 * - `status` always from the member: the Workflow CRD has no status subresource, so an update without it
 *   would wipe the controller's progress.
 * - `spec.suspend`, `spec.shutdown`, `spec.activeDeadlineSeconds`: an explicit value in the template wins
 *   (control-plane suspend, resume via `false`, stop). When the template leaves one unset, a value the
 *   control plane itself had set is dropped (a control-plane `argo resume` or `retry` removed it), and a
 *   value set in the member stays (`argo suspend`, `stop`, `terminate` run there; for
 *   activeDeadlineSeconds only the old terminate value 0). Which fields the control plane set is
 *   recorded on the object (annotation interpreter.karmada.io/managed-fields).
 */
export function retain(desired: KObject, observed: KObject): KObject {
  retainMemberOwnedFields(desired, observed, MEMBER_OWNED_FIELDS);
  if (observed.status !== undefined && observed.status !== null) desired.status = observed.status;
  return desired;
}
