// `spec.templateDefaults` applied to one template the way the Argo controller does it
// (workflow/controller/operator.go `mergedTemplateDefaultsInto`: the defaults of other template types
// are dropped, then a Kubernetes strategic merge with the template as the patch), restricted to the
// fields InterpretReplica reads: the containers' resources and restartPolicy, podResources, nodeSelector,
// affinity, tolerations and priorityClassName. Hand-written because no dependency offers strategic merge
// for a CRD type; restricting it keeps the cost of applying the defaults to every template small and
// countable (WorkBudget).
import { isJsonObject, type JsonObject } from '../../../../src/interpreter/types.ts';
import type { WorkBudget } from '../../../shared/work-budget.ts';
import { templateType, type TemplateType } from './templates.ts';

/** The resources part of a container or of podResources: the `limits` and `requests` maps. */
function resourcesOf(value: unknown): JsonObject | undefined {
  if (!isJsonObject(value)) return undefined;
  const out: JsonObject = {};
  if (isJsonObject(value.limits)) out.limits = value.limits;
  if (isJsonObject(value.requests)) out.requests = value.requests;
  return out;
}

/** What of a container sizes its pod: name (the strategic-merge key), resources, restartPolicy. */
function containerShape(value: unknown): JsonObject | undefined {
  if (!isJsonObject(value)) return undefined;
  const out: JsonObject = {};
  if (value.name !== undefined) out.name = value.name;
  const resources = resourcesOf(value.resources);
  if (resources) out.resources = resources;
  if (value.restartPolicy !== undefined) out.restartPolicy = value.restartPolicy;
  return out;
}

function containerShapes(value: unknown): JsonObject[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: JsonObject[] = [];
  for (const item of value) {
    const shape = containerShape(item);
    if (shape) out.push(shape);
  }
  return out;
}

const MAIN_CONTAINER_TYPES = ['container', 'script'] as const;

/**
 * The fields of a template (or of templateDefaults) that InterpretReplica reads, with their Argo names.
 * `affinity` keeps only whether it is set (Argo lets a set affinity replace the parent's and the
 * workflow's) and its required node affinity. The type field of every template type present is kept.
 */
export function replicaShape(template: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const type of MAIN_CONTAINER_TYPES) {
    const shape = containerShape(template[type]);
    if (shape) out[type] = shape;
  }
  if (isJsonObject(template.containerSet)) out.containerSet = { containers: containerShapes(template.containerSet.containers) ?? [] };
  for (const type of ['resource', 'data', 'dag', 'steps', 'suspend', 'http', 'plugin'] as const) {
    if (template[type] !== undefined && template[type] !== null) out[type] = {};
  }
  const initContainers = containerShapes(template.initContainers);
  if (initContainers) out.initContainers = initContainers;
  const sidecars = containerShapes(template.sidecars);
  if (sidecars) out.sidecars = sidecars;
  const podResources = resourcesOf(template.podResources);
  if (podResources) out.podResources = podResources;
  if (isJsonObject(template.nodeSelector)) out.nodeSelector = template.nodeSelector;
  if (isJsonObject(template.affinity)) {
    const required = template.affinity.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    out.affinity = isJsonObject(required) ? { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } } : {};
  }
  if (Array.isArray(template.tolerations)) out.tolerations = template.tolerations;
  if (typeof template.priorityClassName === 'string' && template.priorityClassName !== '') out.priorityClassName = template.priorityClassName;
  return out;
}

/** Strategic merge of two maps with scalar values: the patch's keys win. */
function mergeMaps(base: JsonObject | undefined, patch: JsonObject | undefined, budget: WorkBudget): JsonObject | undefined {
  if (!base || !patch) return patch ?? base;
  budget.charge(Object.keys(base).length + Object.keys(patch).length, 'applying spec.templateDefaults to every template');
  return { ...base, ...patch };
}

function mergeResources(base: JsonObject | undefined, patch: JsonObject | undefined, budget: WorkBudget): JsonObject | undefined {
  if (!base || !patch) return patch ?? base;
  const out: JsonObject = {};
  const limits = mergeMaps(base.limits, patch.limits, budget);
  const requests = mergeMaps(base.requests, patch.requests, budget);
  if (limits) out.limits = limits;
  if (requests) out.requests = requests;
  return out;
}

function mergeContainers(base: JsonObject | undefined, patch: JsonObject | undefined, budget: WorkBudget): JsonObject | undefined {
  if (!base || !patch) return patch ?? base;
  const out: JsonObject = { ...base, ...patch };
  const resources = mergeResources(base.resources, patch.resources, budget);
  if (resources) out.resources = resources;
  return out;
}

/**
 * Strategic merge of two lists whose items merge by `key` (Kubernetes `mergeSlice`): items of the
 * patch merge into the base item with the same key value, and the result keeps the patch's order with
 * the base-only items placed before the first patch item that comes after them in the base
 * (`normalizeElementOrder`/`mergeSortedSlice` in k8s.io/apimachinery pkg/util/strategicpatch). Maps
 * instead of upstream's linear searches keep it linear.
 */
export function mergeListByKey(
  base: unknown[] | undefined,
  patch: unknown[] | undefined,
  key: string,
  mergeItems: (a: JsonObject, b: JsonObject) => JsonObject,
  budget: WorkBudget,
): unknown[] | undefined {
  if (!base || !patch) return patch ?? base;
  budget.charge(base.length + patch.length, 'applying spec.templateDefaults to every template');
  const keyOf = (item: unknown): unknown => (isJsonObject(item) ? (item[key] ?? '') : undefined);
  const baseIndex = new Map<unknown, number>();
  base.forEach((item, index) => {
    const k = keyOf(item);
    if (k !== undefined && !baseIndex.has(k)) baseIndex.set(k, index);
  });
  const patchKeys = new Set(patch.map(keyOf));
  const patched = patch.map((item) => {
    const index = baseIndex.get(keyOf(item));
    return index !== undefined && isJsonObject(item) ? mergeItems(base[index] as JsonObject, item) : item;
  });
  const baseOnly = base.filter((item) => !patchKeys.has(keyOf(item)));
  const merged: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < baseOnly.length || j < patched.length) {
    if (j >= patched.length) merged.push(baseOnly[i++]);
    else if (i >= baseOnly.length) merged.push(patched[j++]);
    else {
      const left = baseIndex.get(keyOf(baseOnly[i]));
      const right = baseIndex.get(keyOf(patched[j]));
      if (left !== undefined && right !== undefined && left < right) merged.push(baseOnly[i++]);
      else merged.push(patched[j++]);
    }
  }
  return merged;
}

/**
 * The replica shape of `template` after applying the replica shape of `spec.templateDefaults`. The
 * template keeps its own type only: the defaults' blocks of other template types are dropped, as Argo does.
 */
export function withTemplateDefaults(template: JsonObject, defaults: JsonObject | undefined, budget: WorkBudget): JsonObject {
  const own = replicaShape(template);
  if (!defaults) return own;
  const type: TemplateType | undefined = templateType(template);
  const out: JsonObject = { ...own };
  if (type === 'container' || type === 'script') {
    const container = mergeContainers(defaults[type], own[type], budget);
    if (container) out[type] = container;
  } else if (type === 'containerSet') {
    out.containerSet = own.containerSet;
  }
  const mergeContainerItems = (a: JsonObject, b: JsonObject): JsonObject => mergeContainers(a, b, budget)!;
  for (const field of ['initContainers', 'sidecars'] as const) {
    const list = mergeListByKey(defaults[field], own[field], 'name', mergeContainerItems, budget);
    if (list) out[field] = list;
  }
  const podResources = mergeResources(defaults.podResources, own.podResources, budget);
  if (podResources) out.podResources = podResources;
  const nodeSelector = mergeMaps(defaults.nodeSelector, own.nodeSelector, budget);
  if (nodeSelector) out.nodeSelector = nodeSelector;
  if (defaults.affinity || own.affinity) {
    const required =
      own.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ??
      defaults.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    out.affinity = required ? { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } } : {};
  }
  const tolerations = mergeListByKey(defaults.tolerations, own.tolerations, 'key', (a, b) => ({ ...a, ...b }), budget);
  if (tolerations) out.tolerations = tolerations;
  const priorityClassName = own.priorityClassName ?? defaults.priorityClassName;
  if (priorityClassName) out.priorityClassName = priorityClassName;
  return out;
}
