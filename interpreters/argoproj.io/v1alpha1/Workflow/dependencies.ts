// InterpretDependency for Argo Workflow: everything a workflow needs in the member cluster before it
// can run. Pod-level references (volumes, env, envFrom, imagePullSecrets) go through the shared
// pod-template walker; the Argo-specific ones are found by walking the Workflow along Argo's own types
// (argo-types.ts).
//
// Only objects in the workflow's own namespace (and cluster-scoped ClusterWorkflowTemplates) are
// returned. Karmada propagates a dependency through an attached ResourceBinding created in the
// workload's namespace with a controller owner reference to the dependency object
// (pkg/dependenciesdistributor/dependencies_distributor.go `buildAttachedBinding`), and re-syncs it only
// from bindings in the dependency's namespace (`reconcileResourceTemplate`): for a dependency in another
// namespace the owner reference crosses namespaces, which Kubernetes' garbage collector treats as an
// absent owner, and changes to the dependency never reach the binding. So a semaphore ConfigMap in
// another namespace is left out (it must exist in the member by other means).
import { type DependentObjectReference, isJsonObject, type JsonObject, type KObject } from '../../../../src/interpreter/types.ts';
import { podTemplateDependencies } from '../../../../src/k8s/pod-dependencies.ts';
import { ARGO_TYPES, type FieldType, type Reference, type TypeName } from './argo-types.ts';
import { allTemplates, asArray, mainContainers, POD_TEMPLATE_TYPES, templateType } from './templates.ts';

const ARGO_API_VERSION = 'argoproj.io/v1alpha1';
/** Argo's name when `artifactRepositoryRef` does not name a ConfigMap. */
const DEFAULT_ARTIFACT_REPOSITORY_CONFIGMAP = 'artifact-repositories';

const SORT_FIELDS = ['apiVersion', 'kind', 'namespace', 'name'] as const;

/** Karmada's own order for configurable interpreters' dependencies: apiVersion, kind, namespace, name. */
function compareRefs(a: DependentObjectReference, b: DependentObjectReference): number {
  for (const field of SORT_FIELDS) {
    const left = a[field] ?? '';
    const right = b[field] ?? '';
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}

/**
 * A name an object can have: non-empty and not an Argo expression. `{{inputs.parameters.x}}` in a
 * reference is substituted by the controller at run time, so it names nothing Karmada could propagate.
 */
function objectName(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' && !value.includes('{{') ? value : undefined;
}

/** De-duplicated references (Karmada uses a webhook's list as-is, duplicates included). */
class DependencySet {
  private readonly byKey = new Map<string, DependentObjectReference>();

  add(apiVersion: string, kind: string, name: unknown, namespace: string | undefined): void {
    const objectNameValue = objectName(name);
    if (!objectNameValue) return;
    this.addRef(namespace ? { apiVersion, kind, namespace, name: objectNameValue } : { apiVersion, kind, name: objectNameValue });
  }

  addRef(ref: DependentObjectReference): void {
    this.byKey.set(JSON.stringify([ref.apiVersion, ref.kind, ref.namespace ?? '', ref.name ?? '']), ref);
  }

  sorted(): DependentObjectReference[] {
    return [...this.byKey.values()].sort(compareRefs);
  }
}

/**
 * One synthetic pod holding every container, init container and volume any template (or
 * `templateDefaults`) declares, plus the workflow's `volumes`, `imagePullSecrets` and the sidecar
 * containers of `executorPlugins`: the pod-level references are the union over all the pods the
 * workflow can create. Every template counts, not only those reachable from the entrypoint: propagating
 * an object no pod uses costs little, missing one breaks the run.
 */
function unionPod(spec: JsonObject): KObject {
  const templates = allTemplates(spec);
  if (isJsonObject(spec.templateDefaults)) templates.push(spec.templateDefaults);
  const containers: unknown[] = [];
  const initContainers: unknown[] = [];
  const volumes: unknown[] = [...asArray(spec.volumes)];
  for (const template of templates) {
    // For templateDefaults this includes its `container` block, which applies to every container template.
    for (const container of mainContainers(template)) containers.push(container);
    for (const sidecar of asArray(template.sidecars)) if (isJsonObject(sidecar)) containers.push(sidecar);
    for (const init of asArray(template.initContainers)) if (isJsonObject(init)) initContainers.push(init);
    for (const volume of asArray(template.volumes)) volumes.push(volume);
  }
  for (const plugin of asArray(spec.executorPlugins)) {
    const container = plugin?.spec?.sidecar?.container;
    if (isJsonObject(container)) containers.push(container);
  }
  const podSpec: JsonObject = { containers, initContainers, volumes };
  if (Array.isArray(spec.imagePullSecrets)) podSpec.imagePullSecrets = spec.imagePullSecrets;
  return { metadata: {}, spec: podSpec };
}

/** Records the object `value` (a field of kind `reference`) names. */
function addReference(deps: DependencySet, reference: Reference, value: unknown, namespace: string | undefined): void {
  switch (reference) {
    case 'secretKeySelector':
      if (isJsonObject(value)) deps.add('v1', 'Secret', value.name, namespace);
      return;
    case 'configMapKeySelector':
      if (isJsonObject(value)) deps.add('v1', 'ConfigMap', value.name, namespace);
      return;
    case 'serviceAccountName':
      if (value !== 'default') deps.add('v1', 'ServiceAccount', value, namespace);
      return;
    case 'templateRef':
      if (!isJsonObject(value)) return;
      if (value.clusterScope === true) deps.add(ARGO_API_VERSION, 'ClusterWorkflowTemplate', value.name, undefined);
      else deps.add(ARGO_API_VERSION, 'WorkflowTemplate', value.name, namespace);
      return;
    case 'semaphoreRef': {
      // workflow/sync/lock_name.go: the semaphore's namespace, else the workflow's. Another namespace
      // cannot be propagated as a dependency (see the top of this file).
      if (!isJsonObject(value) || !isJsonObject(value.configMapKeyRef)) return;
      const semaphoreNamespace = typeof value.namespace === 'string' && value.namespace !== '' ? value.namespace : namespace;
      if (semaphoreNamespace === namespace) deps.add('v1', 'ConfigMap', value.configMapKeyRef.name, namespace);
      return;
    }
    case 'artifactRepositoryRef':
      // workflow/artifactrepositories: the ref's ConfigMap, "artifact-repositories" when it names none.
      if (isJsonObject(value)) deps.add('v1', 'ConfigMap', objectName(value.configMap) ?? DEFAULT_ARTIFACT_REPOSITORY_CONFIGMAP, namespace);
      return;
  }
}

/** The values a field holds, by its shape. */
function valuesOf(value: unknown, shape: FieldType['shape']): unknown[] {
  switch (shape) {
    case 'one':
      return [value];
    case 'list':
      return asArray(value);
    case 'listOfLists':
      return asArray(value).flatMap((group) => asArray(group));
    case 'map':
      return isJsonObject(value) ? Object.values(value) : [];
  }
}

/** argo-workflows util/secrets/secret_name.go `TokenName`: the token Secret Argo looks for when the ServiceAccount names none. */
const tokenSecretName = (serviceAccount: string) => `${serviceAccount}.service-account-token`;

/** The `executor.serviceAccountName` of a workflow spec or template. */
const executorAccount = (holder: unknown): string | undefined =>
  isJsonObject(holder) && isJsonObject(holder.executor) ? objectName(holder.executor.serviceAccountName) : undefined;

/**
 * The service-account token Secrets Argo mounts by name into the pods it creates: since Kubernetes 1.24
 * nobody creates them automatically, and a pod whose Secret is missing stays in ContainerCreating.
 * Argo names the Secret from the ServiceAccount object (util/secrets/secret_name.go
 * `TokenNameForServiceAccount`: its `secrets[0]`, else the `workflows.argoproj.io/service-account-token.name`
 * annotation, else `<name>.service-account-token`); only the last is visible from the Workflow.
 * - Workflow pods (workflow/controller/workflowpod.go `setupServiceAccount`): the token of the executor
 *   account, a pod template's own `executor` first, then `templateDefaults`', then the workflow's
 *   (`executorServiceAccountName`). The workflow's and templateDefaults' count even when no pod template is
 *   visible: templates behind `workflowTemplateRef`/`templateRef` run with them too.
 * - The agent pod that runs `http` and `plugin` templates (workflow/controller/agent.go `createAgentPod`,
 *   serviceaccount.go `getServiceAccountTokenVolume`): the token of the workflow's `serviceAccountName`,
 *   `default` when unset (operator.go `getServiceAccountTokenName`).
 * - Workflow-level `executorPlugins` with `automountServiceAccountToken` (agent.go
 *   `getExecutorPluginComponents`): the ServiceAccount `<plugin>-executor-plugin` and its token. Their
 *   sidecars run only in the agent pod, but they are listed even when no http or plugin template is visible:
 *   a workflow declares plugins to call them, perhaps from templates behind `templateRef`.
 */
function addServiceAccountTokens(deps: DependencySet, spec: JsonObject, namespace: string | undefined): void {
  const defaults = isJsonObject(spec.templateDefaults) ? spec.templateDefaults : undefined;
  const inherited = executorAccount(defaults) ?? executorAccount(spec);
  const accounts = new Set<string>([executorAccount(spec), executorAccount(defaults)].filter((name): name is string => name !== undefined));
  const templates = allTemplates(spec);
  for (const template of templates) {
    const type = templateType(template);
    if (type === undefined || !POD_TEMPLATE_TYPES.has(type)) continue;
    const account = executorAccount(template) ?? inherited;
    if (account) accounts.add(account);
  }
  if (templates.some((template) => templateType(template) === 'http' || templateType(template) === 'plugin')) {
    // An expression names an account only at run time; an unset one is `default`.
    const agentAccount = spec.serviceAccountName === undefined || spec.serviceAccountName === '' ? 'default' : objectName(spec.serviceAccountName);
    if (agentAccount) accounts.add(agentAccount);
  }
  for (const plugin of asArray(spec.executorPlugins)) {
    const name = objectName(plugin?.metadata?.name);
    if (!name || plugin?.spec?.sidecar?.automountServiceAccountToken !== true) continue;
    deps.add('v1', 'ServiceAccount', `${name}-executor-plugin`, namespace);
    accounts.add(`${name}-executor-plugin`);
  }
  for (const account of accounts) deps.add('v1', 'Secret', tokenSecretName(account), namespace);
}

export function getDependencies(workflow: KObject): DependentObjectReference[] {
  const spec: JsonObject = isJsonObject(workflow.spec) ? workflow.spec : {};
  const namespace: string | undefined = workflow.metadata?.namespace || undefined;
  const deps = new DependencySet();

  // PVCs from volumeClaimTemplates are created by the Argo controller as `<workflow>-<name>`.
  const claimTemplateNames = asArray(spec.volumeClaimTemplates)
    .map((claim) => claim?.metadata?.name)
    .filter((name): name is string => typeof name === 'string');
  for (const ref of podTemplateDependencies(unionPod(spec), namespace ?? '', { excludeClaimNames: claimTemplateNames })) {
    // The synthetic pod carries no serviceAccountName; service accounts are collected below.
    deps.addRef(ref);
  }

  // Walk the spec along Argo's types, iteratively: inline templates nest to any depth.
  const pending: Array<{ value: unknown; type: TypeName }> = [{ value: spec, type: 'WorkflowSpec' }];
  while (pending.length > 0) {
    const { value, type } = pending.pop()!;
    if (!isJsonObject(value)) continue;
    const fields: Record<string, FieldType> = ARGO_TYPES[type];
    for (const [field, fieldType] of Object.entries(fields)) {
      const fieldValue = value[field];
      if (fieldValue === undefined || fieldValue === null) continue;
      for (const item of valuesOf(fieldValue, fieldType.shape)) {
        if ('reference' in fieldType) addReference(deps, fieldType.reference, item, namespace);
        else pending.push({ value: item, type: fieldType.type });
      }
    }
  }

  addServiceAccountTokens(deps, spec, namespace);
  return deps.sorted();
}
