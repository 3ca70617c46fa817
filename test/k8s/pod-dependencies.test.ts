import { describe, expect, it } from 'vitest';
import { karmadaPodDependencies, podTemplateDependencies } from '../../src/k8s/pod-dependencies.ts';

/** C8: CloneSet template whose `data` volume comes from a volumeClaimTemplate. */
const c8Template = {
  spec: {
    serviceAccountName: 'web-sa',
    imagePullSecrets: [{ name: 'regcred' }],
    volumes: [
      { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
      { name: 'cache', persistentVolumeClaim: { claimName: 'shared-cache' } },
      { name: 'conf', configMap: { name: 'web-conf' } },
    ],
    containers: [{ name: 'app', image: 'app:2', env: [{ name: 'DB_PASS', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }] }],
  },
};

const ref = (kind: string, name: string, namespace = 'shop') => ({ apiVersion: 'v1', kind, namespace, name });

describe('podTemplateDependencies', () => {
  it('C8: VCT-named PVC excluded, sorted by kind then name', () => {
    expect(podTemplateDependencies(c8Template, 'shop', { excludeClaimNames: ['data'] })).toEqual([
      ref('ConfigMap', 'web-conf'),
      ref('PersistentVolumeClaim', 'shared-cache'),
      ref('Secret', 'db'),
      ref('Secret', 'regcred'),
      ref('ServiceAccount', 'web-sa'),
    ]);
  });

  it('de-duplicates names referenced several times', () => {
    const template = {
      spec: {
        volumes: [{ name: 'a', configMap: { name: 'mysql-config' } }],
        containers: [
          {
            name: 'nginx',
            env: [
              { name: 'logData', valueFrom: { configMapKeyRef: { name: 'mysql-config', key: 'log' } } },
              { name: 'lowerData', valueFrom: { configMapKeyRef: { name: 'mysql-config', key: 'lower' } } },
            ],
          },
        ],
      },
    };
    expect(podTemplateDependencies(template, 'ns')).toEqual([ref('ConfigMap', 'mysql-config', 'ns')]);
  });

  it('honours the deprecated serviceAccount alias when serviceAccountName is empty', () => {
    expect(podTemplateDependencies({ spec: { serviceAccount: 'legacy' } }, 'ns')).toEqual([ref('ServiceAccount', 'legacy', 'ns')]);
    expect(karmadaPodDependencies({ spec: { serviceAccount: 'legacy' } }, 'ns')).toEqual([]);
  });

  // docs/dependencies.md: the resource.k8s.io version karmada-apiserver serves is unknown, and Karmada's
  // helper.GetDependenciesFromPodTemplate (pkg/util/helper/pod.go) does not list them either.
  it('does not report resource claims, claim templates or cluster-scoped classes', () => {
    const template = {
      spec: {
        priorityClassName: 'high',
        runtimeClassName: 'gvisor',
        resourceClaims: [
          { name: 'gpu', resourceClaimName: 'shared-gpu' },
          { name: 'nic', resourceClaimTemplateName: 'nic-per-pod' },
        ],
        containers: [{ name: 'a', resources: { claims: [{ name: 'gpu' }, { name: 'nic' }] } }],
      },
    };
    expect(podTemplateDependencies(template, 'ns')).toEqual([]);
    expect(karmadaPodDependencies(template, 'ns')).toEqual([]);
  });

  it('accepts an iterable of excluded claim names and tolerates a missing spec', () => {
    expect(
      podTemplateDependencies(c8Template, 'shop', { excludeClaimNames: new Set(['data', 'shared-cache']) }).filter((r) => r.kind === 'PersistentVolumeClaim'),
    ).toEqual([]);
    expect(podTemplateDependencies(undefined, 'ns')).toEqual([]);
  });
});

describe('karmadaPodDependencies (helper.GetDependenciesFromPodTemplate)', () => {
  it('C8 built-in additionally returns the VCT-named PVC "data"', () => {
    expect(karmadaPodDependencies(c8Template, 'shop')).toEqual([
      ref('ConfigMap', 'web-conf'),
      ref('PersistentVolumeClaim', 'data'),
      ref('PersistentVolumeClaim', 'shared-cache'),
      ref('Secret', 'db'),
      ref('Secret', 'regcred'),
      ref('ServiceAccount', 'web-sa'),
    ]);
  });

  it('Karmada testdata: CloneSet with configmap dependency', () => {
    // conformance/karmada/apps.kruise.io/v1alpha1/CloneSet/testdata/interpretdependency-test.yaml
    const template = {
      metadata: { labels: { app: 'sample', test: 'cloneset' } },
      spec: {
        volumes: [{ name: 'configmap', configMap: { name: 'my-sample-config' } }],
        containers: [
          {
            name: 'nginx',
            image: 'nginx:alpine',
            env: [
              { name: 'logData', valueFrom: { configMapKeyRef: { name: 'mysql-config', key: 'log' } } },
              { name: 'lowerData', valueFrom: { configMapKeyRef: { name: 'mysql-config', key: 'lower' } } },
            ],
          },
        ],
      },
    };
    expect(karmadaPodDependencies(template, 'test-cloneset')).toEqual([
      ref('ConfigMap', 'my-sample-config', 'test-cloneset'),
      ref('ConfigMap', 'mysql-config', 'test-cloneset'),
    ]);
  });

  it('visits init, app and ephemeral containers: env valueFrom and envFrom', () => {
    const template = {
      spec: {
        initContainers: [{ name: 'i', envFrom: [{ configMapRef: { name: 'init-env' } }, { secretRef: { name: 'init-secret' } }] }],
        containers: [{ name: 'c', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'app-cm', key: 'x' } } }] }],
        ephemeralContainers: [{ name: 'debug', envFrom: [{ secretRef: { name: 'debug-secret' } }] }],
      },
    };
    expect(karmadaPodDependencies(template, 'ns')).toEqual([
      ref('ConfigMap', 'app-cm', 'ns'),
      ref('ConfigMap', 'init-env', 'ns'),
      ref('Secret', 'debug-secret', 'ns'),
      ref('Secret', 'init-secret', 'ns'),
    ]);
  });

  it('follows the secret refs of every volume type VisitPodSecretNames covers, and projected sources', () => {
    const template = {
      spec: {
        volumes: [
          { name: 'a', azureFile: { secretName: 's-azure', shareName: 'x' } },
          { name: 'b', cephfs: { monitors: ['m'], secretRef: { name: 's-ceph' } } },
          { name: 'c', cinder: { volumeID: 'v', secretRef: { name: 's-cinder' } } },
          { name: 'd', flexVolume: { driver: 'd', secretRef: { name: 's-flex' } } },
          { name: 'e', rbd: { monitors: ['m'], image: 'i', secretRef: { name: 's-rbd' } } },
          { name: 'f', secret: { secretName: 's-secret' } },
          { name: 'g', scaleIO: { gateway: 'g', system: 's', secretRef: { name: 's-scaleio' } } },
          { name: 'h', iscsi: { targetPortal: 't', iqn: 'q', lun: 0, secretRef: { name: 's-iscsi' } } },
          { name: 'i', storageos: { volumeName: 'v', secretRef: { name: 's-storageos' } } },
          { name: 'j', csi: { driver: 'd', nodePublishSecretRef: { name: 's-csi' } } },
          {
            name: 'k',
            projected: {
              sources: [
                { secret: { name: 's-projected' } },
                { configMap: { name: 'cm-projected' } },
                { serviceAccountToken: { path: 'token' } },
                { downwardAPI: { items: [] } },
              ],
            },
          },
          { name: 'l', glusterfs: { endpoints: 'ep', path: 'p' } },
          { name: 'm', emptyDir: {} },
          { name: 'n', ephemeral: { volumeClaimTemplate: { spec: {} } } },
        ],
        containers: [{ name: 'c' }],
      },
    };
    const names = (kind: string) =>
      karmadaPodDependencies(template, 'ns')
        .filter((r) => r.kind === kind)
        .map((r) => r.name);
    expect(names('Secret')).toEqual([
      's-azure',
      's-ceph',
      's-cinder',
      's-csi',
      's-flex',
      's-iscsi',
      's-projected',
      's-rbd',
      's-scaleio',
      's-secret',
      's-storageos',
    ]);
    expect(names('ConfigMap')).toEqual(['cm-projected']);
    expect(names('PersistentVolumeClaim')).toEqual([]);
  });

  it('skips empty names, the "default" ServiceAccount and malformed entries', () => {
    const template = {
      spec: {
        serviceAccountName: 'default',
        imagePullSecrets: [{ name: '' }, {}, null],
        volumes: [
          { name: 'x', secret: {} },
          { name: 'y', persistentVolumeClaim: { claimName: '' } },
          { name: 'z', configMap: { name: 7 } },
        ],
        containers: [
          {
            name: 'c',
            env: [
              { name: 'A', value: 'plain' },
              { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            ],
          },
        ],
      },
    };
    expect(karmadaPodDependencies(template, 'ns')).toEqual([]);
  });

  it('omits namespace when it is empty (namespace,omitempty)', () => {
    expect(karmadaPodDependencies({ spec: { serviceAccountName: 'sa' } }, '')).toEqual([{ apiVersion: 'v1', kind: 'ServiceAccount', name: 'sa' }]);
  });
});
