// CloneSet apps.kruise.io/v1beta1 has the semantics of v1alpha1 at the v1beta1 field paths. The
// reference is Kruise's own conversion (commit a1502a379, apis/apps/v1alpha1/cloneset_conversion.go,
// (*CloneSet).ConvertTo), re-stated below for the fields our interpreter reads or writes: for any
// v1alpha1 CloneSet x, every operation of the v1beta1 module on ConvertTo(x) answers what the v1alpha1
// module answers on x (objects compared after ConvertTo). The answer on the wire must patch v1beta1 paths only.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { cloneSet } from '../../interpreters/apps.kruise.io/v1alpha1/CloneSet/index.ts';
import { cloneSetV1beta1 } from '../../interpreters/apps.kruise.io/v1beta1/CloneSet/index.ts';
import { createRegistry } from '../../src/interpreter/setup.ts';
import type { AggregatedStatusItem, JsonObject, KObject } from '../../src/interpreter/types.ts';
import { buildApp } from '../../src/server/app.ts';

const obj = (v: unknown): JsonObject => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {});
/** Go's `omitempty`: the key is written only for a non-zero value. */
const put = (target: JsonObject, key: string, value: unknown): void => {
  if (value !== undefined && value !== null && value !== false && value !== '') target[key] = value;
};

/**
 * cloneset_conversion.go (*CloneSet).ConvertTo, for the fields the interpreter touches: ObjectMeta and
 * status copied; CloneSetSpec fields copied; scaleStrategy.disablePVCReuse inverted into enablePVCReuse;
 * updateStrategy.type ReCreate/InPlaceIfPossible/InPlaceOnly/"" become type RollingUpdate with that
 * rollingUpdate.podUpdatePolicy (ReCreate for ""), OnDelete stays OnDelete without rollingUpdate;
 * partition, maxUnavailable, maxSurge, paused move under rollingUpdate.
 */
function convertTo(a: KObject): KObject {
  const spec = obj(a.spec);
  const out: KObject = { apiVersion: 'apps.kruise.io/v1beta1', kind: 'CloneSet', metadata: structuredClone(a.metadata) };
  const b: JsonObject = {};
  for (const key of ['replicas', 'selector', 'template', 'volumeClaimTemplates', 'revisionHistoryLimit', 'minReadySeconds', 'progressDeadlineSeconds'])
    put(b, key, structuredClone(spec[key]));
  const scale = obj(spec.scaleStrategy);
  const scaleStrategy: JsonObject = {};
  put(scaleStrategy, 'podsToDelete', structuredClone(scale.podsToDelete));
  put(scaleStrategy, 'maxUnavailable', scale.maxUnavailable);
  put(scaleStrategy, 'enablePVCReuse', scale.disablePVCReuse !== true);
  b.scaleStrategy = scaleStrategy;
  const strategy = obj(spec.updateStrategy);
  if (strategy.type === 'OnDelete') b.updateStrategy = { type: 'OnDelete' };
  else {
    const policy = strategy.type === 'InPlaceIfPossible' || strategy.type === 'InPlaceOnly' ? strategy.type : 'ReCreate';
    const rollingUpdate: JsonObject = {};
    for (const key of ['partition', 'maxUnavailable', 'maxSurge']) put(rollingUpdate, key, strategy[key]);
    rollingUpdate.podUpdatePolicy = policy;
    put(rollingUpdate, 'paused', strategy.paused);
    b.updateStrategy = { type: 'RollingUpdate', rollingUpdate };
  }
  out.spec = b;
  if (a.status !== undefined) out.status = structuredClone(a.status);
  return out;
}

// v1alpha1 CloneSets as users and controllers write them, including the shapes ConvertTo treats apart.
const intOrPercent = fc.oneof(
  fc.nat(14),
  fc.integer({ min: 0, max: 100 }).map((p) => `${p}%`),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const strategyArb = fc.record(
  {
    type: fc.constantFrom('ReCreate', 'InPlaceIfPossible', 'InPlaceOnly', 'OnDelete'),
    partition: intOrPercent,
    maxUnavailable: intOrPercent,
    maxSurge: intOrPercent,
    paused: fc.boolean(),
  },
  { requiredKeys: [] },
);
const statusArb = fc.record(
  {
    observedGeneration: fc.nat(4),
    replicas: fc.nat(12),
    readyReplicas: fc.nat(12),
    availableReplicas: fc.nat(12),
    updatedReplicas: fc.nat(12),
    expectedUpdatedReplicas: fc.nat(12),
    updateRevision: fc.constantFrom('web-6d9f', 'web-5c7b'),
    conditions: fc.constantFrom([], [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }]),
  },
  { requiredKeys: [] },
);
const cloneSetArb: fc.Arbitrary<KObject> = fc
  .record(
    {
      replicas: maybe(fc.nat(12)),
      updateStrategy: maybe(strategyArb),
      scaleStrategy: maybe(
        fc.record(
          { podsToDelete: fc.constantFrom(['web-a'], ['web-b', 'web-c']), maxUnavailable: intOrPercent, disablePVCReuse: fc.boolean() },
          { requiredKeys: [] },
        ),
      ),
      status: maybe(statusArb),
      rolloutControlled: fc.boolean(),
      retainReplicas: fc.boolean(),
    },
    { requiredKeys: ['rolloutControlled', 'retainReplicas'] },
  )
  .map(({ replicas, updateStrategy, scaleStrategy, status, rolloutControlled, retainReplicas }) => {
    const spec: JsonObject = {
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'app', image: 'app:2', envFrom: [{ configMapRef: { name: 'web-conf' } }] }] },
      },
    };
    put(spec, 'replicas', replicas);
    put(spec, 'updateStrategy', updateStrategy);
    put(spec, 'scaleStrategy', scaleStrategy);
    const metadata: JsonObject = { name: 'web', namespace: 'shop', generation: 3 };
    if (retainReplicas) metadata.labels = { 'resourcetemplate.karmada.io/retain-replicas': 'true' };
    if (rolloutControlled) metadata.annotations = { 'batchrelease.rollouts.kruise.io/control-info': '{"name":"web"}' };
    const object: KObject = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata, spec };
    if (status !== undefined) object.status = status;
    return object;
  });

const copy = (o: KObject): KObject => structuredClone(o);

/** `member` with the updateStrategy.type of `template` (or none when the template has none). */
function withTypeOf(template: KObject, member: KObject): KObject {
  const out = copy(member);
  const type = obj(obj(template.spec).updateStrategy).type;
  const strategy = { ...obj(obj(out.spec).updateStrategy) };
  delete strategy.type;
  if (type !== undefined) strategy.type = type;
  obj(out.spec).updateStrategy = strategy;
  return out;
}

describe('CloneSet v1beta1 answers as v1alpha1 does on the object Kruise converts it to (cloneset_conversion.go ConvertTo)', () => {
  it('serves apps.kruise.io/v1beta1 CloneSet with every operation v1alpha1 CloneSet serves', () => {
    const operations = (m: object) => Object.keys(m).filter((key) => typeof (m as Record<string, unknown>)[key] === 'function');
    expect(cloneSetV1beta1.targets).toEqual([{ apiVersion: 'apps.kruise.io/v1beta1', kind: 'CloneSet' }]);
    expect(operations(cloneSetV1beta1)).toEqual(operations(cloneSet));
    expect(cloneSetV1beta1.preservation).toEqual(cloneSet.preservation);
  });

  it('ReviseReplica: the split partition and budgets land at updateStrategy.rollingUpdate', () => {
    fc.assert(
      fc.property(cloneSetArb, fc.nat(12), (x, share) => {
        expect(cloneSetV1beta1.reviseReplica!(convertTo(x), share)).toEqual(convertTo(cloneSet.reviseReplica!(copy(x), share) as KObject));
      }),
    );
  });

  it('Retain: member-owned partition, paused, podsToDelete and replicas are kept at their v1beta1 paths', () => {
    fc.assert(
      fc.property(cloneSetArb, cloneSetArb, (desired, member) => {
        // The member runs the template's strategy type: ConvertTo drops partition and paused of an
        // OnDelete object, so a type changed in the member alone has no v1beta1 twin to compare with.
        const observed = withTypeOf(desired, member);
        expect(cloneSetV1beta1.retain!(convertTo(desired), convertTo(observed))).toEqual(convertTo(cloneSet.retain!(copy(desired), observed) as KObject));
      }),
    );
  });

  it('InterpretHealth reads paused and partition under rollingUpdate, OnDelete from updateStrategy.type', () => {
    fc.assert(
      fc.property(cloneSetArb, (x) => {
        expect(cloneSetV1beta1.interpretHealth!(convertTo(x))).toBe(cloneSet.interpretHealth!(x));
      }),
    );
  });

  it('InterpretReplica, InterpretStatus and InterpretDependency are the same', () => {
    fc.assert(
      fc.property(cloneSetArb, (x) => {
        expect(cloneSetV1beta1.getReplicas!(convertTo(x))).toEqual(cloneSet.getReplicas!(x));
        expect(cloneSetV1beta1.reflectStatus!(convertTo(x))).toEqual(cloneSet.reflectStatus!(x));
        expect(cloneSetV1beta1.getDependencies!(convertTo(x))).toEqual(cloneSet.getDependencies!(x));
      }),
    );
  });

  it('AggregateStatus is the same (CloneSetStatus is copied field by field)', () => {
    fc.assert(
      fc.property(cloneSetArb, fc.array(fc.tuple(fc.boolean(), statusArb), { maxLength: 4 }), (x, reports) => {
        const items: AggregatedStatusItem[] = reports.map(([applied, status], i) => ({
          clusterName: `member${i}`,
          applied,
          status: { ...status, generation: 3 },
        }));
        expect(cloneSetV1beta1.aggregateStatus!(convertTo(x), structuredClone(items))).toEqual(convertTo(cloneSet.aggregateStatus!(copy(x), items) as KObject));
      }),
    );
  });

  it('the reference conversion itself follows ConvertTo on a known object', () => {
    const x: KObject = {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'web' },
      spec: { replicas: 4, updateStrategy: { type: 'InPlaceIfPossible', partition: 1, paused: true }, scaleStrategy: { disablePVCReuse: true } },
    };
    expect(convertTo(x).spec).toEqual({
      replicas: 4,
      scaleStrategy: {},
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1, podUpdatePolicy: 'InPlaceIfPossible', paused: true } },
    });
  });
});

describe('CloneSet v1beta1 over HTTP', async () => {
  const loaded = await createRegistry();
  const app = buildApp({ registry: loaded.registry, logger: pino({ level: 'silent' }) });
  afterAll(async () => {
    await app.close();
    loaded.close();
  });
  const send = async (request: JsonObject) => {
    const reply = await app.inject({
      method: 'POST',
      url: '/interpret',
      headers: { 'content-type': 'application/json' },
      payload: {
        apiVersion: 'config.karmada.io/v1alpha1',
        kind: 'ResourceInterpreterContext',
        request: { uid: 'u1', kind: { group: 'apps.kruise.io', version: 'v1beta1', kind: 'CloneSet' }, name: 'web', namespace: 'shop', ...request },
      },
    });
    return JSON.parse(reply.body).response as { successful: boolean; patch?: string; status?: { code: number; message: string } };
  };
  const patchOf = (patch: string | undefined): Array<{ op: string; path: string; value?: unknown }> =>
    JSON.parse(Buffer.from(patch ?? '', 'base64').toString());
  const v1beta1 = (spec: JsonObject, annotations?: JsonObject): KObject => ({
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'CloneSet',
    metadata: { name: 'web', namespace: 'shop', ...(annotations ? { annotations } : {}) },
    spec,
  });

  it('ReviseReplica patches the partition and budgets under /spec/updateStrategy/rollingUpdate', async () => {
    const object = v1beta1({ replicas: 10, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 3, maxUnavailable: 2, maxSurge: 4 } } });
    const response = await send({ operation: 'ReviseReplica', object, replicas: 4 });
    expect(response.successful, JSON.stringify(response.status)).toBe(true);
    const patch = patchOf(response.patch);
    expect(patch.map((p) => p.path).sort()).toEqual([
      '/spec/replicas',
      '/spec/updateStrategy/rollingUpdate/maxSurge',
      '/spec/updateStrategy/rollingUpdate/maxUnavailable',
      '/spec/updateStrategy/rollingUpdate/partition',
    ]);
  });

  it('Retain under Kruise Rollouts patches partition and paused under /spec/updateStrategy/rollingUpdate', async () => {
    const desired = v1beta1({ replicas: 4, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } } });
    const observed = v1beta1(
      { replicas: 4, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 3, paused: true } } },
      { 'batchrelease.rollouts.kruise.io/control-info': '{}' },
    );
    const response = await send({ operation: 'Retain', object: desired, observedObject: observed });
    expect(response.successful, JSON.stringify(response.status)).toBe(true);
    const paths = patchOf(response.patch).map((p) => p.path);
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) expect(path).toMatch(/^\/spec\/updateStrategy\/rollingUpdate\/(partition|paused)$/);
  });
});
