// ReviseReplica for Kruise workloads: the member gets its share of the replicas and a proportional
// share of every absolute count in the rollout settings (see src/k8s/replicas.ts for the rounding).
import { isJsonObject, type JsonObject, type KObject } from '../../../src/interpreter/types.ts';
import { splitBudget, splitKeepBack } from '../../../src/k8s/replicas.ts';
import { specReplicas } from './fields.ts';

/** Paths under spec, e.g. ['updateStrategy', 'partition']. */
export type SpecPath = readonly string[];

export interface ScaledFields {
  /** Counts of pods kept at the old revision: split rounding up. */
  keepBack: readonly SpecPath[];
  /** Budgets of pods unavailable/surged at once: split rounding down, at least 1 unless 0. */
  budgets: readonly SpecPath[];
}

function scaleAt(spec: JsonObject, path: SpecPath, scale: (value: unknown) => unknown): void {
  let parent: unknown = spec;
  for (const key of path.slice(0, -1)) parent = isJsonObject(parent) ? parent[key] : undefined;
  const leaf = path[path.length - 1]!;
  if (!isJsonObject(parent) || parent[leaf] === undefined) return;
  parent[leaf] = scale(parent[leaf]);
}

export function reviseKruiseReplicas(obj: KObject, share: number, fields: ScaledFields): KObject {
  const total = specReplicas(obj);
  if (!isJsonObject(obj.spec)) obj.spec = {};
  obj.spec.replicas = share;
  // Nothing to split: an empty side, or the whole workload (Duplicated) keeps the template's values.
  if (total === 0 || share === 0 || share === total) return obj;
  for (const path of fields.keepBack) scaleAt(obj.spec, path, (v) => splitKeepBack(v, total, share));
  for (const path of fields.budgets) scaleAt(obj.spec, path, (v) => splitBudget(v, total, share));
  return obj;
}
