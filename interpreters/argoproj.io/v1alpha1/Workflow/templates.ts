// Argo Workflow template walking: which templates exist, what type each is, and the pod a
// pod-creating template turns into (as a PodTemplateSpec-shaped object for the src/k8s helpers).
// Every walk is iterative: steps and DAG templates nest inline templates to any depth.
import { isJsonObject, type JsonObject, type KObject } from '../../../../src/interpreter/types.ts';

export function asArray(value: unknown): any[] {
  return Array.isArray(value) ? value : [];
}

/** The mutually exclusive template-type fields of an Argo Template. */
export const TEMPLATE_TYPES = ['container', 'script', 'containerSet', 'resource', 'data', 'dag', 'steps', 'suspend', 'http', 'plugin'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

/**
 * Templates whose pod the controller builds from the Workflow itself. `resource` and `data` run Argo's
 * executor image as the main container, sized by the controller ConfigMap (not visible here), so only
 * their sidecars, init containers and podResources count. `http` and `plugin` run in a shared agent pod
 * of unknown size; `dag`, `steps` and `suspend` create no pod.
 */
export const POD_TEMPLATE_TYPES: ReadonlySet<TemplateType> = new Set(['container', 'script', 'containerSet', 'resource', 'data']);

export function templateType(template: JsonObject): TemplateType | undefined {
  return TEMPLATE_TYPES.find((type) => template[type] !== undefined && template[type] !== null);
}

/** The steps of a steps template (`steps: [][]WorkflowStep`) and the tasks of a DAG template, in order. */
export function childSteps(template: JsonObject): JsonObject[] {
  const children: JsonObject[] = [];
  for (const group of asArray(template.steps)) for (const step of asArray(group)) if (isJsonObject(step)) children.push(step);
  if (isJsonObject(template.dag)) for (const task of asArray(template.dag.tasks)) if (isJsonObject(task)) children.push(task);
  return children;
}

/**
 * Every template the Workflow defines: `spec.templates[]` plus inline templates of steps and DAG tasks
 * (`steps[][].inline`, `dag.tasks[].inline`) at any depth, each once. Templates only referenced through
 * `templateRef`/`workflowTemplateRef` live in other objects and are not visible to an interpreter.
 */
export function allTemplates(spec: JsonObject): JsonObject[] {
  const found: JsonObject[] = [];
  const seen = new Set<JsonObject>();
  const pending: unknown[] = [...asArray(spec.templates)].reverse();
  while (pending.length > 0) {
    const template = pending.pop();
    if (!isJsonObject(template) || seen.has(template)) continue;
    seen.add(template);
    found.push(template);
    const inline = childSteps(template).map((step) => step.inline);
    for (let i = inline.length - 1; i >= 0; i--) pending.push(inline[i]);
  }
  return found;
}

/** A Kubernetes container from an Argo one: drops Argo-only fields (script source, mirrorVolumeMounts, containerSet dependencies). */
function asContainer(value: unknown, fallbackName: string): JsonObject | undefined {
  if (!isJsonObject(value)) return undefined;
  const { source: _source, mirrorVolumeMounts: _mirror, dependencies: _dependencies, ...container } = value;
  return { name: fallbackName, ...container };
}

/** Containers with a name (a default one when the user left it out, as Argo does for `main`). */
function asContainers(values: unknown[], defaultName: (index: number) => string): JsonObject[] {
  const containers: JsonObject[] = [];
  values.forEach((value, index) => {
    const container = asContainer(value, defaultName(index));
    if (container) containers.push(container);
  });
  return containers;
}

/** The user-declared containers that run for the whole life of the template's pod. */
export function mainContainers(template: JsonObject): JsonObject[] {
  switch (templateType(template)) {
    case 'container':
      return asContainers([template.container], () => 'main');
    case 'script':
      return asContainers([template.script], () => 'main');
    case 'containerSet':
      return asContainers(asArray(template.containerSet?.containers), (index) => `container-${index}`);
    default:
      return [];
  }
}

/**
 * The pod a pod-creating template becomes, as a PodTemplateSpec: main containers plus sidecars (they run
 * side by side), init containers, and pod-level resources (`podResources`, template over workflow). Not
 * modelled: Argo's own `init`/`wait` executor containers (sized by the controller ConfigMap) and
 * `podSpecPatch`, a strategic-merge patch string with `{{…}}` parameters that only the controller can
 * evaluate. Scheduling constraints are handled separately (node-claim.ts).
 */
export function templatePod(template: JsonObject, workflowSpec: JsonObject): KObject {
  const containers = mainContainers(template);
  for (const sidecar of asContainers(asArray(template.sidecars), (index) => `sidecar-${index}`)) containers.push(sidecar);
  const initContainers = asContainers(asArray(template.initContainers), (index) => `init-${index}`);
  const podResources = template.podResources ?? workflowSpec.podResources;
  const spec: JsonObject = { containers };
  if (initContainers.length > 0) spec.initContainers = initContainers;
  if (isJsonObject(podResources)) spec.resources = podResources;
  return { metadata: {}, spec };
}
