// InterpretDependency for Argo Workflow (kinds.md §4.3): everything a workflow needs in the member
// cluster before it can run. Pod-level references (volumes, env, envFrom, imagePullSecrets) go through
// the shared pod-template walker; the Argo-specific references are collected here.
import type { DependentObjectReference, KObject } from '../../../../src/interpreter/types.ts';
import { podTemplateDependencies } from '../../../../src/k8s/podtemplate.ts';
import { allTemplates, asArray, isObject, mainContainers } from './templates.ts';

const ARGO_API_VERSION = 'argoproj.io/v1alpha1';
/** Argo's name when `artifactRepositoryRef` does not name a ConfigMap. */
const DEFAULT_ARTIFACT_REPOSITORY_CONFIGMAP = 'artifact-repositories';

type Visitor = (key: string, value: unknown, holder: Record<string, any>, holderKey: string | undefined) => void;

/**
 * Calls `visit` for every property of every object under `value`. `holderKey` is the key under which the
 * holding object sits (for list elements: the list's key). Strings are never parsed, so `podSpecPatch`
 * and `resource.manifest` contents are not followed (they may hold `{{…}}` parameters anyway).
 */
function walk(value: unknown, visit: Visitor, holderKey?: string): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit, holderKey);
    return;
  }
  if (!isObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    visit(key, child, value, holderKey);
    walk(child, visit, key);
  }
}

function nameOf(value: unknown): string | undefined {
  return isObject(value) && typeof value.name === 'string' && value.name !== '' ? value.name : undefined;
}

const SORT_FIELDS = ['apiVersion', 'kind', 'namespace', 'name'] as const;

/** Karmada's own test harness order: apiVersion, kind, namespace, name. */
function compareRefs(a: DependentObjectReference, b: DependentObjectReference): number {
  for (const field of SORT_FIELDS) {
    const left = a[field] ?? '';
    const right = b[field] ?? '';
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}

/** De-duplicated references (Karmada uses a webhook's list as-is, duplicates included). */
class DependencySet {
  private readonly byKey = new Map<string, DependentObjectReference>();

  add(apiVersion: string, kind: string, name: string | undefined, namespace: string | undefined): void {
    if (name) this.addRef(namespace ? { apiVersion, kind, namespace, name } : { apiVersion, kind, name });
  }

  addRef(ref: DependentObjectReference): void {
    this.byKey.set(JSON.stringify([ref.apiVersion, ref.kind, ref.namespace ?? '', ref.name ?? '', ref.labelSelector ?? null]), ref);
  }

  sorted(): DependentObjectReference[] {
    return [...this.byKey.values()].sort(compareRefs);
  }
}

/**
 * One synthetic pod holding every container, init container and volume any template (or
 * `templateDefaults`) declares, plus the workflow's `volumes` and `imagePullSecrets`: the pod-level
 * references are the union over all the pods the workflow can create.
 */
function unionPod(spec: Record<string, any>): KObject {
  const templates = [...allTemplates(spec), ...(isObject(spec.templateDefaults) ? [spec.templateDefaults] : [])];
  const containers: unknown[] = [];
  const initContainers: unknown[] = [];
  const volumes: unknown[] = [...asArray(spec.volumes)];
  for (const template of templates) {
    // For templateDefaults this includes its `container` block, which applies to every container template.
    containers.push(...mainContainers(template), ...asArray(template.sidecars).filter(isObject));
    initContainers.push(...asArray(template.initContainers).filter(isObject));
    volumes.push(...asArray(template.volumes));
  }
  const podSpec: Record<string, any> = { containers, initContainers, volumes };
  if (Array.isArray(spec.imagePullSecrets)) podSpec.imagePullSecrets = spec.imagePullSecrets;
  return { metadata: {}, spec: podSpec };
}

export function getDependencies(workflow: KObject): DependentObjectReference[] {
  const spec: Record<string, any> = isObject(workflow.spec) ? workflow.spec : {};
  const namespace: string | undefined = workflow.metadata?.namespace || undefined;
  const deps = new DependencySet();

  // PVCs from volumeClaimTemplates are created by the Argo controller as `<workflow>-<name>`.
  const claimTemplateNames = asArray(spec.volumeClaimTemplates).map((claim) => claim?.metadata?.name).filter((name): name is string => typeof name === 'string');
  for (const ref of podTemplateDependencies(unionPod(spec), namespace ?? '', { excludeClaimNames: claimTemplateNames })) {
    // The synthetic pod carries no serviceAccountName; service accounts are collected below.
    deps.addRef(ref);
  }

  const artifactRepositoryRef = spec.artifactRepositoryRef;
  if (isObject(artifactRepositoryRef)) {
    const configMap = typeof artifactRepositoryRef.configMap === 'string' && artifactRepositoryRef.configMap !== '' ? artifactRepositoryRef.configMap : DEFAULT_ARTIFACT_REPOSITORY_CONFIGMAP;
    deps.add('v1', 'ConfigMap', configMap, namespace);
  }

  walk(spec, (key, value, holder, holderKey) => {
    if (key === 'configMapKeyRef') {
      // Parameter/env `valueFrom.configMapKeyRef`, and semaphores, whose SemaphoreRef may name another namespace.
      const isSemaphore = holderKey === 'semaphores' || holderKey === 'semaphore';
      const refNamespace = isSemaphore && typeof holder.namespace === 'string' && holder.namespace !== '' ? holder.namespace : namespace;
      deps.add('v1', 'ConfigMap', nameOf(value), refNamespace);
    } else if (key === 'secretKeyRef' || key.endsWith('Secret')) {
      // env and HTTP header `secretKeyRef`; every artifact/HTTP credential selector (accessKeySecret,
      // secretKeySecret, usernameSecret, sshPrivateKeySecret, clientCertSecret, …) ends in "Secret".
      deps.add('v1', 'Secret', nameOf(value), namespace);
    } else if (key === 'serviceAccountName') {
      // workflow, executor, templates, templateDefaults, artifactGC (workflow and per artifact).
      if (typeof value === 'string' && value !== '' && value !== 'default') deps.add('v1', 'ServiceAccount', value, namespace);
    } else if (key === 'templateRef' || key === 'workflowTemplateRef') {
      // workflowTemplateRef, and templateRef on steps, DAG tasks and lifecycle hooks (workflow, step, task).
      if (isObject(value) && value.clusterScope === true) deps.add(ARGO_API_VERSION, 'ClusterWorkflowTemplate', nameOf(value), undefined);
      else deps.add(ARGO_API_VERSION, 'WorkflowTemplate', nameOf(value), namespace);
    }
  });

  return deps.sorted();
}
