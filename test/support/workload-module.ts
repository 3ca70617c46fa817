// A small test-only interpreter for the fictional workload.example.io/v1alpha1 Workload (the CRD of
// Karmada's example webhook). It exercises the dispatch machinery without depending on real kinds.
import { InterpreterError, type KindInterpreter, type KObject } from '../../src/interpreter/types.ts';

export const workloadModule: KindInterpreter = {
  name: 'test:Workload',
  targets: [{ apiVersion: 'workload.example.io/v1alpha1', kind: 'Workload' }],
  getReplicas(obj) {
    return {
      replicas: obj.spec?.replicas ?? 1,
      requirements: { resourceRequest: { cpu: '100m' }, nodeClaim: { nodeSelector: { disk: 'ssd' } } },
    };
  },
  reviseReplica(obj, replicas) {
    obj.spec = { ...obj.spec, replicas };
    return obj;
  },
  retain(desired, observed) {
    if (observed.spec?.paused !== undefined) desired.spec = { ...desired.spec, paused: observed.spec.paused };
    return desired;
  },
  aggregateStatus(obj, items) {
    let ready = 0;
    for (const item of items ?? []) ready += item.status?.readyReplicas ?? 0;
    obj.status = { ...obj.status, readyReplicas: ready };
    return obj;
  },
  reflectStatus(observed) {
    return { readyReplicas: observed.status?.readyReplicas ?? 0 };
  },
  interpretHealth(observed) {
    return (observed.status?.readyReplicas ?? 0) >= (observed.spec?.replicas ?? 1);
  },
  getDependencies(obj) {
    const name = obj.spec?.template?.spec?.containers?.[0]?.envFrom?.[0]?.configMapRef?.name;
    if (obj.spec?.fail === 'deliberate') throw new InterpreterError(422, 'deliberate failure for tests');
    if (obj.spec?.fail === 'bug') throw new TypeError("Cannot read properties of undefined (reading 'x')");
    return name ? [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: obj.metadata?.namespace, name }] : [];
  },
};

/** A module that violates the contract, to prove the dispatcher catches it. */
export const brokenModule: KindInterpreter = {
  name: 'test:Broken',
  targets: [{ apiVersion: 'broken.example.io/v1', kind: 'Broken' }],
  getReplicas: () => ({ replicas: 2.5 }),
  reviseReplica: (obj: KObject) => ({ ...obj, kind: '' }),
  interpretHealth: () => 'yes' as unknown as boolean,
  getDependencies: () => [{ apiVersion: 'v1', kind: 'Secret' }],
  reflectStatus: () => null as unknown as Record<string, unknown>,
};

export function workloadObject(overrides: Partial<KObject> = {}): KObject {
  return {
    apiVersion: 'workload.example.io/v1alpha1',
    kind: 'Workload',
    metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' } },
    spec: {
      replicas: 3,
      paused: false,
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', envFrom: [{ configMapRef: { name: 'nginx-env' } }] }] },
      },
    },
    ...overrides,
  };
}

let counter = 0;
/** A request envelope shaped exactly as Karmada's webhook client builds it (spec §1.2, §2.4). */
export function karmadaRequest(operation: string, object: KObject, extra: Record<string, unknown> = {}) {
  const [group, version] = String(object.apiVersion).includes('/') ? String(object.apiVersion).split('/') : ['', object.apiVersion];
  counter += 1;
  return {
    kind: 'ResourceInterpreterContext',
    apiVersion: 'config.karmada.io/v1alpha1',
    request: {
      uid: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
      kind: { group, version, kind: object.kind },
      name: object.metadata?.name ?? '',
      ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}),
      operation,
      object,
      replicas: 0,
      ...extra,
    },
  };
}
