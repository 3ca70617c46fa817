// Argo Workflow template walking: which templates exist, what type each is, and the pod a
// pod-creating template turns into (as a PodTemplateSpec-shaped object for the src/k8s helpers).
import type { KObject } from '../../../../src/interpreter/types.ts';

export function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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

export function templateType(template: Record<string, any>): TemplateType | undefined {
  return TEMPLATE_TYPES.find((type) => template[type] !== undefined && template[type] !== null);
}

/**
 * `spec.templateDefaults` applied to one template, the way the Argo controller does it
 * (`mergedTemplateDefaultsInto`: strategic merge with the template winning, then the template keeps its own
 * type only). Hand-written because no dependency offers Kubernetes strategic merge for a CRD type;
 * objects merge key by key, lists and scalars from the template replace the default's (Argo would merge
 * name-keyed lists such as env; resources, the part that matters for sizing, are maps and merge the same).
 */
export function withTemplateDefaults(template: Record<string, any>, defaults: unknown): Record<string, any> {
  if (!isObject(defaults)) return template;
  const type = templateType(template);
  const merged = deepMerge(defaults, template) as Record<string, any>;
  if (type) for (const other of TEMPLATE_TYPES) if (other !== type) delete merged[other];
  return merged;
}

function deepMerge(base: unknown, override: unknown): unknown {
  if (override === undefined || override === null) return base;
  if (!isObject(base) || !isObject(override)) return override;
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) result[key] = deepMerge(base[key], value);
  return result;
}

/**
 * Every template the Workflow defines: `spec.templates[]` plus inline templates of steps and DAG tasks
 * (`steps[][].inline`, `dag.tasks[].inline`), recursively. Templates only referenced through
 * `templateRef`/`workflowTemplateRef` live in other objects and are not visible to an interpreter.
 */
export function allTemplates(spec: Record<string, any>): Record<string, any>[] {
  const found: Record<string, any>[] = [];
  const visit = (template: unknown): void => {
    if (!isObject(template)) return;
    found.push(template);
    for (const group of asArray(template.steps)) for (const step of asArray(group)) if (isObject(step)) visit(step.inline);
    if (isObject(template.dag)) for (const task of asArray(template.dag.tasks)) if (isObject(task)) visit(task.inline);
  };
  for (const template of asArray(spec.templates)) visit(template);
  return found;
}

/** The templates of `spec` with `spec.templateDefaults` applied. */
export function effectiveTemplates(spec: Record<string, any>): Record<string, any>[] {
  return allTemplates(spec).map((template) => withTemplateDefaults(template, spec.templateDefaults));
}

/** A Kubernetes container from an Argo one: drops Argo-only fields (script source, mirrorVolumeMounts, containerSet dependencies). */
function asContainer(value: unknown, fallbackName: string): Record<string, any> | undefined {
  if (!isObject(value)) return undefined;
  const { source: _source, mirrorVolumeMounts: _mirror, dependencies: _dependencies, ...container } = value;
  return { name: fallbackName, ...container };
}

/** Containers with a name (a default one when the user left it out, as Argo does for `main`). */
function asContainers(values: unknown[], defaultName: (index: number) => string): Record<string, any>[] {
  return values
    .map((value, index) => asContainer(value, defaultName(index)))
    .filter((container): container is Record<string, any> => container !== undefined);
}

/** The user-declared containers that run for the whole life of the template's pod. */
export function mainContainers(template: Record<string, any>): Record<string, any>[] {
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
 * evaluate. Scheduling constraints are handled separately (see requirements.ts).
 */
export function templatePod(template: Record<string, any>, workflowSpec: Record<string, any>): KObject {
  const sidecars = asContainers(asArray(template.sidecars), (index) => `sidecar-${index}`);
  const initContainers = asContainers(asArray(template.initContainers), (index) => `init-${index}`);
  const podResources = template.podResources ?? workflowSpec.podResources;
  const spec: Record<string, any> = { containers: [...mainContainers(template), ...sidecars] };
  if (initContainers.length > 0) spec.initContainers = initContainers;
  if (isObject(podResources)) spec.resources = podResources;
  return { metadata: {}, spec };
}
