// Namespaced objects a PodTemplateSpec (plain JSON object) needs in the member cluster.
//
// karmadaPodDependencies ports Karmada's helper.GetDependenciesFromPodTemplate (pkg/util/helper/pod.go)
// and the visitors it uses (pkg/util/lifted/visitpod.go, lifted from Kubernetes pkg/api/v1/pod/util.go):
// what `kube.getPodDependencies` returns, except that Karmada's order is Go-map random and ours is sorted.
// podTemplateDependencies is the variant for our TypeScript modules (de-duplicated, claim exclusions).

import { type DependentObjectReference, isJsonObject, type JsonObject, type KObject } from '../interpreter/types.ts';

type DependencyKind = 'ConfigMap' | 'Secret' | 'ServiceAccount' | 'PersistentVolumeClaim';

function asArray(v: unknown): any[] {
  return Array.isArray(v) ? v : [];
}

/** The name at `holder[key]` when it is a non-empty string (skipEmptyNames; Go would reject non-strings). */
function nameAt(holder: unknown, key: string): string | undefined {
  if (!isJsonObject(holder)) return undefined;
  const name = holder[key];
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** VisitContainers(AllContainers): init, then app, then ephemeral containers. */
function allContainers(spec: JsonObject): JsonObject[] {
  return [...asArray(spec.initContainers), ...asArray(spec.containers), ...asArray(spec.ephemeralContainers)].filter(isJsonObject);
}

/**
 * Volume types whose secret reference VisitPodSecretNames follows, in its `switch` order: only the first
 * volume source present counts (an API-valid volume has exactly one).
 */
const SECRET_VOLUME_REFS: ReadonlyArray<[source: string, ref: (s: JsonObject) => string | undefined]> = [
  ['azureFile', (s) => nameAt(s, 'secretName')],
  ['cephfs', (s) => nameAt(s.secretRef, 'name')],
  ['cinder', (s) => nameAt(s.secretRef, 'name')],
  ['flexVolume', (s) => nameAt(s.secretRef, 'name')],
  ['projected', () => undefined], // its sources are handled separately
  ['rbd', (s) => nameAt(s.secretRef, 'name')],
  ['secret', (s) => nameAt(s, 'secretName')],
  ['scaleIO', (s) => nameAt(s.secretRef, 'name')],
  ['iscsi', (s) => nameAt(s.secretRef, 'name')],
  ['storageos', (s) => nameAt(s.secretRef, 'name')],
  ['csi', (s) => nameAt(s.nodePublishSecretRef, 'name')],
];

/** lifted.VisitPodSecretNames. */
function secretNames(spec: JsonObject): string[] {
  const names: (string | undefined)[] = [];
  for (const ref of asArray(spec.imagePullSecrets)) names.push(nameAt(ref, 'name'));
  for (const container of allContainers(spec)) {
    for (const envFrom of asArray(container.envFrom)) names.push(nameAt(envFrom?.secretRef, 'name'));
    for (const env of asArray(container.env)) names.push(nameAt(env?.valueFrom?.secretKeyRef, 'name'));
  }
  for (const volume of asArray(spec.volumes).filter(isJsonObject)) {
    const match = SECRET_VOLUME_REFS.find(([source]) => isJsonObject(volume[source]));
    if (!match) continue;
    const [source, ref] = match;
    if (source === 'projected') {
      for (const projection of asArray(volume.projected.sources)) names.push(nameAt(projection?.secret, 'name'));
    } else {
      names.push(ref(volume[source]));
    }
  }
  return names.filter((n): n is string => n !== undefined);
}

/** lifted.VisitPodConfigmapNames. */
function configMapNames(spec: JsonObject): string[] {
  const names: (string | undefined)[] = [];
  for (const container of allContainers(spec)) {
    for (const envFrom of asArray(container.envFrom)) names.push(nameAt(envFrom?.configMapRef, 'name'));
    for (const env of asArray(container.env)) names.push(nameAt(env?.valueFrom?.configMapKeyRef, 'name'));
  }
  for (const volume of asArray(spec.volumes).filter(isJsonObject)) {
    if (isJsonObject(volume.projected)) {
      for (const projection of asArray(volume.projected.sources)) names.push(nameAt(projection?.configMap, 'name'));
    } else if (isJsonObject(volume.configMap)) {
      names.push(nameAt(volume.configMap, 'name'));
    }
  }
  return names.filter((n): n is string => n !== undefined);
}

/** getPVCNames: volumes[].persistentVolumeClaim.claimName. */
function claimNames(spec: JsonObject): string[] {
  return asArray(spec.volumes)
    .map((volume) => nameAt(volume?.persistentVolumeClaim, 'claimName'))
    .filter((n): n is string => n !== undefined);
}

function reference(kind: DependencyKind, namespace: string, name: string): DependentObjectReference {
  // Go's DependentObjectReference has `namespace,omitempty`.
  return namespace ? { apiVersion: 'v1', kind, namespace, name } : { apiVersion: 'v1', kind, name };
}

/** Unique references sorted by kind, then name (Karmada's Go-map order is random; a stable one diffs well). */
function sortedReferences(byKind: ReadonlyArray<[DependencyKind, Iterable<string>]>, namespace: string): DependentObjectReference[] {
  const refs: DependentObjectReference[] = [];
  for (const [kind, names] of [...byKind].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const name of [...new Set(names)].sort()) refs.push(reference(kind, namespace, name));
  }
  return refs;
}

function podSpecOf(podTemplateSpec: KObject | undefined): JsonObject {
  return isJsonObject(podTemplateSpec) && isJsonObject(podTemplateSpec.spec) ? podTemplateSpec.spec : {};
}

/**
 * Exactly the set helper.GetDependenciesFromPodTemplate returns: ConfigMaps and Secrets referenced by
 * env/envFrom of init, app and ephemeral containers, imagePullSecrets and volumes (configMap, secret,
 * projected configMap/secret sources, and the secret refs of azureFile, cephfs, cinder, flexVolume, rbd,
 * scaleIO, iscsi, storageos, csi), the ServiceAccount `serviceAccountName` unless empty or "default", and
 * PVCs of `persistentVolumeClaim` volumes. Sorted by kind, then name; `namespace` omitted when empty.
 * Returns [] where Karmada returns nil.
 */
export function karmadaPodDependencies(podTemplateSpec: KObject | undefined, namespace: string): DependentObjectReference[] {
  const spec = podSpecOf(podTemplateSpec);
  const serviceAccount = nameAt(spec, 'serviceAccountName');
  return sortedReferences(
    [
      ['ConfigMap', configMapNames(spec)],
      ['Secret', secretNames(spec)],
      ['ServiceAccount', serviceAccount && serviceAccount !== 'default' ? [serviceAccount] : []],
      ['PersistentVolumeClaim', claimNames(spec)],
    ],
    namespace,
  );
}

/**
 * The dependencies our TypeScript modules report: Karmada's set (see karmadaPodDependencies), minus PVCs
 * named in `excludeClaimNames` (volumeClaimTemplates names: those claims are created per pod in the member,
 * as native StatefulSet handling does), and with the deprecated `serviceAccount` field honoured when
 * `serviceAccountName` is empty (the API server treats it as an alias).
 *
 * Deliberately not included (docs/dependencies.md says why, for users): pod `resourceClaims` (the
 * resource.k8s.io version karmada-apiserver serves is unknown here, and one it does not serve makes
 * Karmada's distributor retry the binding forever), and cluster-scoped PriorityClass / RuntimeClass.
 */
export function podTemplateDependencies(
  podTemplateSpec: KObject | undefined,
  namespace: string,
  opts: { excludeClaimNames?: Iterable<string> } = {},
): DependentObjectReference[] {
  const spec = podSpecOf(podTemplateSpec);
  const excluded = new Set(opts.excludeClaimNames ?? []);
  const serviceAccount = nameAt(spec, 'serviceAccountName') ?? nameAt(spec, 'serviceAccount');
  return sortedReferences(
    [
      ['ConfigMap', configMapNames(spec)],
      ['Secret', secretNames(spec)],
      ['ServiceAccount', serviceAccount && serviceAccount !== 'default' ? [serviceAccount] : []],
      ['PersistentVolumeClaim', claimNames(spec).filter((name) => !excluded.has(name))],
    ],
    namespace,
  );
}
