// Spec fields that either side may own: the control plane through the resource template, or someone in
// the member cluster (`argo suspend` run there, Kruise's pod migration reserving an ordinal). Retain must
// keep a member's value when the template leaves the field unset — but not when the control plane set
// the field itself and has since removed it (`argo resume` deletes spec.suspend), or the member's stale
// value would stay forever.
//
// Karmada solves the same problem for labels and annotations by recording, on the object it applies,
// which keys it manages (resourcetemplate.karmada.io/managed-annotations and managed-labels; karmada-io/
// karmada pkg/util/annotation.go, pkg/util/label.go): a key recorded last time and missing from the
// template now was removed by the control plane. The same is done here for spec fields, with one
// annotation on the member object listing the fields the control plane set ("spec.shutdown,spec.suspend").
// It is written by ReviseReplica into the manifest Karmada creates the object from, and by Retain into
// every object it returns.
import { isJsonObject, type KObject } from '../../src/interpreter/types.ts';

export const MANAGED_FIELDS_ANNOTATION = 'interpreter.karmada.io/managed-fields';

export interface MemberOwnedField {
  /** The field, under spec. */
  name: string;
  /** Whether the template sets the field (then the template's value wins and the field is recorded). */
  templateSets(value: unknown): boolean;
  /** Whether a member value is worth keeping when the template leaves the field unset and never set it. */
  memberKeeps(value: unknown): boolean;
}

const pathOf = (field: MemberOwnedField): string => `spec.${field.name}`;

/** The fields the control plane set on the object it last applied (the annotation on the member object). */
export function recordedFields(observed: KObject): Set<string> {
  const value =
    isJsonObject(observed.metadata) && isJsonObject(observed.metadata.annotations) ? observed.metadata.annotations[MANAGED_FIELDS_ANNOTATION] : undefined;
  return new Set(typeof value === 'string' ? value.split(',').filter((path) => path !== '') : []);
}

/** Writes the record (sorted, comma-separated, as Karmada's) into `obj`, or removes it when nothing is recorded. */
function writeRecord(obj: KObject, paths: string[]): void {
  if (paths.length === 0) {
    if (isJsonObject(obj.metadata) && isJsonObject(obj.metadata.annotations)) delete obj.metadata.annotations[MANAGED_FIELDS_ANNOTATION];
    return;
  }
  if (!isJsonObject(obj.metadata)) obj.metadata = {};
  if (!isJsonObject(obj.metadata.annotations)) obj.metadata.annotations = {};
  obj.metadata.annotations[MANAGED_FIELDS_ANNOTATION] = [...paths].sort().join(',');
}

/**
 * For the manifest Karmada creates the member object from (ReviseReplica): records which of `fields`
 * the template sets, so the object carries the record from its creation on. Leaves an object that sets
 * none of them untouched.
 */
export function recordTemplateFields(obj: KObject, fields: readonly MemberOwnedField[]): KObject {
  const spec = isJsonObject(obj.spec) ? obj.spec : {};
  const paths = fields.filter((field) => field.templateSets(spec[field.name])).map(pathOf);
  if (paths.length > 0) writeRecord(obj, paths);
  return obj;
}

/**
 * Retain for `fields`: the template's value when it sets one; otherwise, if the control plane had set
 * the field on the member object and now removed it from the template, the removal wins; otherwise
 * the member's value stays when worth keeping. `desired` gets the new record (or loses a stale one).
 */
export function retainMemberOwnedFields(desired: KObject, observed: KObject, fields: readonly MemberOwnedField[]): void {
  const recorded = recordedFields(observed);
  const observedSpec = isJsonObject(observed.spec) ? observed.spec : {};
  const managed: string[] = [];
  for (const field of fields) {
    const spec = isJsonObject(desired.spec) ? desired.spec : undefined;
    if (field.templateSets(spec?.[field.name])) managed.push(pathOf(field));
    else if (recorded.has(pathOf(field))) continue;
    else if (field.memberKeeps(observedSpec[field.name])) {
      if (!isJsonObject(desired.spec)) desired.spec = {};
      desired.spec[field.name] = observedSpec[field.name];
    }
  }
  writeRecord(desired, managed);
}
