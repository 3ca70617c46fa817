// InterpretReplica for Argo Workflow: one unit of work, sized by the largest pod it can create and
// placed where every one of its pods can run.
import { isJsonObject, type JsonObject, type KObject, type ReplicaRequirements, type ReplicaResult } from '../../../../src/interpreter/types.ts';
import { podTemplateRequirements } from '../../../../src/k8s/pod-requirements.ts';
import { maxOfResourceLists, type ResourceList } from '../../../../src/k8s/resources.ts';
import { WorkBudget } from '../../../shared/work-budget.ts';
import { conjunctionClaim, type PodConstraints } from './node-claim.ts';
import { templateCalls } from './template-calls.ts';
import { replicaShape, withTemplateDefaults } from './template-defaults.ts';
import { asArray, POD_TEMPLATE_TYPES, templatePod, templateType } from './templates.ts';

/**
 * Work allowed per request (WorkBudget units: a map key or list item merged or combined, about a
 * microsecond each) beyond what is linear by construction, plus a share per template: far above what
 * real workflows need (templateDefaults merged into every template that also sets the field), far below
 * what a templateDefaults of many keys times many templates would cost.
 */
const BUDGET_BASE = 250_000;
const BUDGET_PER_TEMPLATE = 16;

const hasEntries = (value: unknown): value is JsonObject => isJsonObject(value) && Object.keys(value).length > 0;
const hasItems = (value: unknown): value is unknown[] => Array.isArray(value) && value.length > 0;

/**
 * The constraints Argo puts on the pod of `template` (with templateDefaults applied) when `boundary`
 * called it (workflow/controller/workflowpod.go `addSchedulingConstraints`): for each of nodeSelector,
 * affinity and tolerations, the template's value if set, else the boundary template's, else the
 * workflow's. nodeSelector and tolerations count as set when non-empty, affinity whenever present
 * (`affinity: {}` replaces the parent's and the workflow's affinity with none).
 */
function podConstraints(template: JsonObject, boundary: JsonObject | undefined, spec: JsonObject): PodConstraints {
  const pick = <T>(isSet: (value: unknown) => value is T, field: string): T | undefined => [template[field], boundary?.[field], spec[field]].find(isSet);
  const constraints: PodConstraints = {};
  const nodeSelector = pick(hasEntries, 'nodeSelector');
  if (nodeSelector) constraints.nodeSelector = nodeSelector;
  const affinity = pick(isJsonObject, 'affinity');
  if (affinity) constraints.affinity = affinity;
  const tolerations = pick(hasItems, 'tolerations');
  if (tolerations) constraints.tolerations = tolerations;
  return constraints;
}

/**
 * The priority class of the claim. Argo gives a pod its template's `priorityClassName`, else the
 * workflow's `podPriorityClassName` (addSchedulingConstraints). Karmada's requirement has room for one:
 * the class every pod shares; when they differ, the workflow's `podPriorityClassName` if some pod runs
 * with it, else the first pod's class.
 */
function claimedPriorityClass(classes: Set<string>, spec: JsonObject): string | undefined {
  if (classes.size <= 1) return classes.values().next().value;
  const workflowClass = spec.podPriorityClassName;
  return typeof workflowClass === 'string' && classes.has(workflowClass) ? workflowClass : classes.values().next().value;
}

/**
 * replicas is always 1: a Workflow is one unit of work, and `spec.parallelism` is its internal fan-out
 * limit, not a count Karmada may divide (Karmada's built-in maps it to replicas and serializes workflows).
 * The requirement covers the pods of every template the controller can run from this Workflow
 * (template-calls.ts), with `spec.templateDefaults` applied:
 * - resourceRequest: the per-resource maximum over those pods (main containers and sidecars summed,
 *   init containers sidecar-aware, podResources when set);
 * - nodeClaim: every pod's nodeSelector, required node affinity and tolerations combined (node-claim.ts);
 * - priorityClassName: as claimedPriorityClass says.
 * A template run through templateRef or workflowTemplateRef lives in another object: it adds no
 * resources, and its pod is taken to carry its boundary's or the workflow's constraints (and
 * templateDefaults', which Argo applies to it too).
 */
export function getReplicas(workflow: KObject): ReplicaResult {
  const spec: JsonObject = isJsonObject(workflow.spec) ? workflow.spec : {};
  const subject = `Workflow ${workflow.metadata?.namespace ?? ''}/${workflow.metadata?.name ?? ''}`;
  const budget = new WorkBudget(BUDGET_BASE + BUDGET_PER_TEMPLATE * asArray(spec.templates).length, subject);
  const defaults = isJsonObject(spec.templateDefaults) ? replicaShape(spec.templateDefaults) : undefined;

  const shapes = new Map<JsonObject, JsonObject>();
  const pods: PodConstraints[] = [];
  const priorityClasses = new Set<string>();
  const workflowClass = typeof spec.podPriorityClassName === 'string' && spec.podPriorityClassName !== '' ? spec.podPriorityClassName : undefined;
  for (const { template, boundary } of templateCalls(spec)) {
    let shape: JsonObject | undefined;
    if (template) {
      const type = templateType(template);
      if (type === undefined || !POD_TEMPLATE_TYPES.has(type)) continue;
      shape = shapes.get(template);
      if (!shape) shapes.set(template, (shape = withTemplateDefaults(template, defaults, budget)));
    }
    // A template of another object: its own values are unknown, its boundary's and the workflow's apply.
    pods.push(podConstraints(shape ?? defaults ?? {}, boundary, spec));
    const priorityClass = shape?.priorityClassName ?? defaults?.priorityClassName ?? workflowClass;
    if (priorityClass) priorityClasses.add(priorityClass);
  }

  const resourceRequest: ResourceList = maxOfResourceLists(
    [...shapes.values()].map((shape) => podTemplateRequirements(templatePod(shape, spec))?.resourceRequest),
  );
  const nodeClaim = conjunctionClaim(pods, budget);
  const priorityClassName = claimedPriorityClass(priorityClasses, spec);

  const requirements: ReplicaRequirements = {};
  if (nodeClaim) requirements.nodeClaim = nodeClaim;
  if (Object.keys(resourceRequest).length > 0) requirements.resourceRequest = resourceRequest;
  if (priorityClassName) requirements.priorityClassName = priorityClassName;
  return Object.keys(requirements).length > 0 ? { replicas: 1, requirements } : { replicas: 1 };
}
