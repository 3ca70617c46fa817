// XlineCluster rules that Karmada's testdata format cannot express (errors, boundaries, preservation,
// registration); the testdata under interpreters/*/v1alpha1/XlineCluster/testdata covers the rest.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { builtinInterpreters } from '../../interpreters/index.ts';
import { placementVerdict } from '../../interpreters/shared/xline-cluster/quorum.ts';
import { goOperator } from '../../interpreters/xline.io.datenlord.com/v1alpha1/XlineCluster/go-operator.ts';
import { goXlineClusterInterpreter } from '../../interpreters/xline.io.datenlord.com/v1alpha1/XlineCluster/index.ts';
import { rustXlineClusterInterpreter } from '../../interpreters/xlineoperator.xline.cloud/v1alpha1/XlineCluster/index.ts';
import { rustOperator } from '../../interpreters/xlineoperator.xline.cloud/v1alpha1/XlineCluster/rust-operator.ts';
import { interpret } from '../../src/interpreter/dispatch.ts';
import { Registry } from '../../src/interpreter/registry.ts';
import { InterpreterError, type AggregatedStatusItem, type KindInterpreter, type KObject } from '../../src/interpreter/types.ts';
import { evaluatePreservation } from '../../src/preservation/index.ts';

const GO = 'xline.io.datenlord.com/v1alpha1';
const RUST = 'xlineoperator.xline.cloud/v1alpha1';
const XLINE_APIS = [goOperator, rustOperator];
const INTERPRETERS: Record<string, KindInterpreter> = { [GO]: goXlineClusterInterpreter, [RUST]: rustXlineClusterInterpreter };

/** The interpreter the registry routes an object to (by its apiVersion), as the server would. */
const xline = {
  reviseReplica: (obj: KObject, share: number) => (INTERPRETERS[obj.apiVersion] ?? goXlineClusterInterpreter).reviseReplica!(obj, share),
  getReplicas: (obj: KObject) => (INTERPRETERS[obj.apiVersion] ?? goXlineClusterInterpreter).getReplicas!(obj),
  interpretHealth: (obj: KObject) => (INTERPRETERS[obj.apiVersion] ?? goXlineClusterInterpreter).interpretHealth!(obj),
  reflectStatus: (obj: KObject) => (INTERPRETERS[obj.apiVersion] ?? goXlineClusterInterpreter).reflectStatus!(obj),
  aggregateStatus: (obj: KObject, items: AggregatedStatusItem[]) => (INTERPRETERS[obj.apiVersion] ?? goXlineClusterInterpreter).aggregateStatus!(obj, items),
};

const goCluster = (replicas: number, status?: KObject): KObject => ({
  apiVersion: GO,
  kind: 'XlineCluster',
  metadata: { name: 'meta', namespace: 'xline', generation: 1 },
  spec: { image: 'ghcr.io/xline-kv/xline:v0.6.1', replicas },
  ...(status ? { status } : {}),
});
const rustCluster = (size: number, status?: KObject): KObject => ({
  apiVersion: RUST,
  kind: 'XlineCluster',
  metadata: { name: 'my-xline', namespace: 'xline', generation: 1 },
  spec: { size, container: { name: 'xline', image: 'datenlord/xline:v0.6.1' } },
  ...(status ? { status } : {}),
});

function thrown(fn: () => unknown): InterpreterError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InterpreterError) return error;
    throw error;
  }
  throw new Error('expected an InterpreterError');
}

describe('registration', () => {
  it('serves each operator API from its own module', async () => {
    expect(builtinInterpreters).toContain(goXlineClusterInterpreter);
    expect(builtinInterpreters).toContain(rustXlineClusterInterpreter);
    expect(goXlineClusterInterpreter.targets).toEqual([{ apiVersion: GO, kind: 'XlineCluster' }]);
    expect(rustXlineClusterInterpreter.targets).toEqual([{ apiVersion: RUST, kind: 'XlineCluster' }]);
    const registry = new Registry({ 'builtin-ts': builtinInterpreters });
    for (const apiVersion of [GO, RUST]) expect(registry.serves(apiVersion, 'XlineCluster')).toBe(true);
  });
});

describe('ReviseReplica never divides the group', () => {
  it('refuses a Divided share for the Rust operator and names the policy change', () => {
    const error = thrown(() => xline.reviseReplica!(rustCluster(5), 2));
    expect(error.code).toBe(400);
    expect(error.message).toContain('spec.size 2');
    expect(error.message).toContain('replicaSchedulingType: Duplicated');
    expect(error.message).toContain('2 < 3 is rejected by the member CRD');
  });

  it('also refuses a share of 3 or more: it would still be a separate group with separate data', () => {
    const error = thrown(() => xline.reviseReplica!(rustCluster(9), 3));
    expect(error.message).toContain('separate group');
    expect(error.message).not.toContain('rejected by the member CRD');
  });

  it('refuses a template with fewer than 3 members for both APIs, naming the field to fix', () => {
    expect(thrown(() => xline.reviseReplica!(goCluster(2), 2)).message).toContain('set spec.replicas >= 3 in the resource template');
    expect(thrown(() => xline.reviseReplica!(rustCluster(1), 1)).message).toContain('set spec.size >= 3 in the resource template');
  });

  it('keeps the Go operator group whole whatever share Karmada computed', () => {
    for (const share of [0, 1, 2, 4]) expect((xline.reviseReplica!(goCluster(3), share) as KObject).spec.replicas).toBe(3);
  });

  it('reaches Karmada as a 400 failure through dispatch', async () => {
    const registry = new Registry({ 'builtin-ts': builtinInterpreters });
    const outcome = await interpret(registry, { apiVersion: RUST, kind: 'XlineCluster', operation: 'ReviseReplica', object: rustCluster(3), replicas: 1 });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.code).toBe(400);
      expect(outcome.message).toMatch(/Duplicated/);
    }
  });
});

describe('InterpretReplica', () => {
  it('rejects a Rust template without an integer size', () => {
    const obj = rustCluster(3);
    delete obj.spec.size;
    expect(thrown(() => xline.getReplicas!(obj)).code).toBe(400);
  });

  it('refuses an object of another apiVersion instead of guessing its layout', () => {
    const error = thrown(() => rustXlineClusterInterpreter.getReplicas!({ ...rustCluster(3), apiVersion: 'xlineoperator.datenlord.io/v1' }));
    expect(error.code).toBe(400);
    expect(error.message).toContain(`is not ${RUST}`);
    expect(thrown(() => goXlineClusterInterpreter.reflectStatus!(rustCluster(3))).message).toContain(`is not ${GO}`);
  });
});

describe('Rust operator health is quorum-aware', () => {
  // quorum = n/2 + 1 (a majority of n): 3 → 2, 5 → 3, 7 → 4
  const cases: Array<[size: number, quorum: number]> = [
    [3, 2],
    [5, 3],
    [7, 4],
    [4, 3],
  ];
  for (const [size, quorum] of cases) {
    it(`size ${size}: healthy from ${quorum} available members, unhealthy at ${quorum - 1}`, () => {
      expect(xline.interpretHealth!(rustCluster(size, { available: quorum }))).toBe(true);
      expect(xline.interpretHealth!(rustCluster(size, { available: size }))).toBe(true);
      expect(xline.interpretHealth!(rustCluster(size, { available: quorum - 1 }))).toBe(false);
    });
  }
});

describe('InterpretStatus', () => {
  it('reports resourceTemplateGeneration only from a numeric annotation', () => {
    const withAnnotation = (value: string) => ({
      ...goCluster(3),
      metadata: { ...goCluster(3).metadata, annotations: { 'resourcetemplate.karmada.io/generation': value } },
    });
    expect(xline.reflectStatus!(withAnnotation('7'))).toMatchObject({ resourceTemplateGeneration: 7 });
    expect(xline.reflectStatus!(withAnnotation(''))).not.toHaveProperty('resourceTemplateGeneration');
    expect(xline.reflectStatus!(withAnnotation('7x'))).not.toHaveProperty('resourceTemplateGeneration');
  });
});

describe('AggregateStatus', () => {
  it('names a cluster that is applied but has not reported yet, and claims no stage', () => {
    const reconciled = { stage: 'complete', stageStatus: 'succeeded', specApplied: true, replicas: 3, resourceTemplateGeneration: 1 };
    const out = xline.aggregateStatus!(goCluster(3), [
      { clusterName: 'member1', applied: true, status: reconciled },
      { clusterName: 'member2', applied: true },
    ]) as KObject;
    expect(out.status.stage).toBeUndefined();
    expect(out.status.lastMessage).toBe('member2: no status reported yet');
    expect(out.status.conditions[0]).toMatchObject({ type: 'Reconciled', status: 'False', message: 'member2 has not reported a status' });
  });
});

describe('placement survival', () => {
  it('lets one 5-member group spread 2/2/1 lose any cluster but not 3/2', () => {
    expect(
      placementVerdict(
        [
          { cluster: 'a', members: 2 },
          { cluster: 'b', members: 2 },
          { cluster: 'c', members: 1 },
        ],
        5,
      ).survivesClusterLoss,
    ).toBe(true);
    const twoClusters = placementVerdict(
      [
        { cluster: 'a', members: 3 },
        { cluster: 'b', members: 2 },
      ],
      5,
    );
    expect(twoClusters.survivesClusterLoss).toBe(false);
    expect(twoClusters.message).toContain('a (3)');
    expect(twoClusters.message).not.toContain('b (2)');
  });

  it('calls one group survivable exactly when every single-cluster loss leaves a quorum of the rest', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 2, maxLength: 5 }), (counts) => {
        const clusters = counts.map((members, i) => ({ cluster: `member${i + 1}`, members }));
        const n = counts.reduce((a, b) => a + b, 0);
        const majority = (alive: number) => 2 * alive > n; // a strict majority of the n members
        const survivesEveryLoss = counts.every((lost) => majority(n - lost));
        expect(placementVerdict(clusters, n).survivesClusterLoss).toBe(survivesEveryLoss);
      }),
    );
  });

  it('never calls a group confined to one cluster survivable', () => {
    expect(placementVerdict([{ cluster: 'a', members: 3 }], 3)).toMatchObject({ survivesClusterLoss: false, reason: 'GroupPerCluster' });
  });
});

describe('recommended state preservation', () => {
  const statuses: Record<string, KObject[]> = {
    [GO]: [
      goCluster(3),
      goCluster(3, { stage: 'Xline/Statefulset', stageStatus: 'failed', image: 'ghcr.io/xline-kv/xline:v0.6.1' }),
      goCluster(3, { stage: 'complete', stageStatus: 'succeeded', lastApplySpecHash: '73e8b484f8252503fabf69bad7d2ea2d' }),
    ],
    [RUST]: [rustCluster(3), rustCluster(5, { available: 4, members: { 'my-xline-nodes-0': '10.0.0.1' } })],
  };
  const rulesFor = (apiVersion: string) => XLINE_APIS.find((api) => api.apiVersion === apiVersion)!.preservation;

  for (const apiVersion of [GO, RUST]) {
    it(`yields valid label values for ${apiVersion}, even before the operator reports`, () => {
      expect(rulesFor(apiVersion).length).toBeGreaterThan(0);
      for (const observed of statuses[apiVersion]!) {
        const result = evaluatePreservation(rulesFor(apiVersion), xline.reflectStatus!(observed), { clusterName: 'member1' });
        expect(result.errors).toEqual([]);
        expect(result.warnings).toEqual([]);
      }
    });
  }

  it('publishes exactly its own rules on each module', () => {
    expect(goXlineClusterInterpreter.preservation).toEqual(rulesFor(GO));
    expect(rustXlineClusterInterpreter.preservation).toEqual(rulesFor(RUST));
  });
});

describe("AggregateStatus follows Karmada's template-generation rule", () => {
  // pkg/resourceinterpreter/default/native/aggregatestatus.go (karmada-io/karmada): a member counts as
  // current only when its resourceTemplateGeneration (0 when absent) has reached the template's generation.
  const reconciled = (resourceTemplateGeneration?: number): KObject => ({
    stage: 'complete',
    stageStatus: 'succeeded',
    specApplied: true,
    replicas: 3,
    lastApplySpecHash: 'aaaa',
    ...(resourceTemplateGeneration === undefined ? {} : { resourceTemplateGeneration }),
  });
  const memberGeneration = fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined });

  it('Go: Reconciled and stage complete exactly when every member has reached the template generation', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.array(memberGeneration, { minLength: 1, maxLength: 4 }), (generation, members) => {
        const template = { ...goCluster(3), metadata: { ...goCluster(3).metadata, generation } };
        const items = members.map((g, i) => ({ clusterName: `member${i + 1}`, applied: true, status: reconciled(g) }));
        const out = goXlineClusterInterpreter.aggregateStatus!(structuredClone(template), items) as KObject;
        const current = members.every((g) => (g ?? 0) >= generation);
        expect(out.status.conditions[0]).toMatchObject({ type: 'Reconciled', status: current ? 'True' : 'False' });
        expect(out.status.stage).toBe(current ? 'complete' : undefined);
        expect(out.status.stageStatus).toBe(current ? 'succeeded' : undefined);
        for (const [i, g] of members.entries()) {
          expect(out.status.conditions[0].message.includes(`member${i + 1} has not received the latest template`)).toBe((g ?? 0) < generation);
        }
      }),
    );
  });

  it('Rust: a lagging member keeps QuorumAvailable True and is named', () => {
    const template = { ...rustCluster(3), metadata: { ...rustCluster(3).metadata, generation: 2 } };
    const out = rustXlineClusterInterpreter.aggregateStatus!(template, [
      { clusterName: 'member1', applied: true, status: { available: 3, size: 3, resourceTemplateGeneration: 2 } },
      { clusterName: 'member2', applied: true, status: { available: 3, size: 3, resourceTemplateGeneration: 1 } },
    ]) as KObject;
    expect(out.status.conditions[0]).toMatchObject({ type: 'QuorumAvailable', status: 'True' });
    expect(out.status.conditions[0].message).toContain('member2 runs template generation 1, the template is at 2');
    expect(out.status.conditions[0].message).not.toContain('member1 runs');
  });
});

describe('AggregateStatus on hostile member statuses', () => {
  it('compares refs by name and namespace only, so a deeply nested value is simply not unanimous', () => {
    let nested: unknown = { name: 'x' };
    for (let depth = 0; depth < 100_000; depth++) nested = { name: 'meta-sts', namespace: 'xline', inner: nested };
    const status = (ref: unknown) => ({
      stage: 'complete',
      stageStatus: 'succeeded',
      specApplied: true,
      replicas: 3,
      resourceTemplateGeneration: 1,
      statefulSetRef: ref,
      serviceRef: { name: 'meta-svc', namespace: 'xline' },
    });
    const out = goXlineClusterInterpreter.aggregateStatus!(goCluster(3), [
      { clusterName: 'member1', applied: true, status: status(nested) },
      { clusterName: 'member2', applied: true, status: status(nested) },
    ]) as KObject;
    expect(out.status.statefulSetRef).toBeUndefined();
    expect(out.status.serviceRef).toEqual({ name: 'meta-svc', namespace: 'xline' });
  });
});
