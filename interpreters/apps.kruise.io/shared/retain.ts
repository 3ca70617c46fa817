// Fields that belong to someone in the member cluster. Karmada re-applies the template whenever the
// member object changes, so anything written there by another controller must be copied back from the
// observed object, or it bounces back (and loops if the writer insists).
import { isJsonObject, type JsonObject, type KObject } from '../../../src/interpreter/types.ts';
import { annotationsOf, labelsOf } from './fields.ts';

/** Karmada's convention (native Deployment Retain): a member HPA/KEDA owns spec.replicas. */
export const RETAIN_REPLICAS_LABEL = 'resourcetemplate.karmada.io/retain-replicas';
/** Set by Kruise Rollouts' BatchRelease while it drives partition/paused of a workload. */
export const ROLLOUT_CONTROL_ANNOTATION = 'batchrelease.rollouts.kruise.io/control-info';

/** target[key] = source[key], or delete target[key] when the source has none. */
export function takeObserved(target: JsonObject, source: JsonObject | undefined, key: string): void {
  if (source !== undefined && source[key] !== undefined) target[key] = source[key];
  else delete target[key];
}

/** spec.replicas from the member when the template opts in with the retain-replicas label. */
export function retainMemberReplicas(desired: KObject, observed: KObject): void {
  if (labelsOf(desired)[RETAIN_REPLICAS_LABEL] !== 'true') return;
  const replicas = isJsonObject(observed.spec) ? observed.spec.replicas : undefined;
  if (typeof replicas !== 'number') return; // nothing to keep: the template's value is the best we have
  if (!isJsonObject(desired.spec)) desired.spec = {};
  desired.spec.replicas = replicas;
}

/** Whether Kruise Rollouts is driving the rollout of the member object right now. */
export const rolloutControlled = (observed: KObject): boolean => annotationsOf(observed)[ROLLOUT_CONTROL_ANNOTATION] !== undefined;

/** The object at `path` under `root`; with `create`, missing levels are added. */
function objectAt(root: JsonObject, path: readonly string[], create: boolean): JsonObject | undefined {
  let node = root;
  for (const key of path) {
    if (!isJsonObject(node[key])) {
      if (!create) return undefined;
      node[key] = {};
    }
    node = node[key];
  }
  return node;
}

/**
 * Copies `fields` of the object at `path` under spec (e.g. ['updateStrategy'] or
 * ['updateStrategy', 'rollingUpdate']) from observed to desired; a field the member does not set is
 * removed from desired. The path is created in desired only when there is something to copy.
 */
export function retainSpecFields(desired: KObject, observed: KObject, path: readonly string[], fields: readonly string[]): void {
  const from = isJsonObject(observed.spec) ? objectAt(observed.spec, path, false) : undefined;
  const needed = from !== undefined && fields.some((f) => from[f] !== undefined);
  if (needed && !isJsonObject(desired.spec)) desired.spec = {};
  const to = isJsonObject(desired.spec) ? objectAt(desired.spec, path, needed) : undefined;
  if (to === undefined) return;
  for (const field of fields) takeObserved(to, from, field);
}
