// Edge cases of the Kruise modules that Karmada-format testdata cannot express well: missing or
// mistyped fields, zero and absent items, idempotent aggregation, preservation rules that must always
// produce valid labels.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeConditions } from '../../interpreters/apps.kruise.io/shared/conditions.ts';
import { formatLabelSelector } from '../../interpreters/apps.kruise.io/shared/label-selector.ts';
import { cloneSet } from '../../interpreters/apps.kruise.io/v1alpha1/CloneSet/index.ts';
import { advancedStatefulSet, PROPAGATE_GOVERNING_SERVICE_ANNOTATION } from '../../interpreters/apps.kruise.io/v1beta1/StatefulSet/index.ts';
import { InterpreterError, type AggregatedStatusItem, type KObject } from '../../src/interpreter/types.ts';
import { evaluatePreservation } from '../../src/preservation/index.ts';
import { interpret } from '../../src/interpreter/dispatch.ts';
import { Registry } from '../../src/interpreter/registry.ts';

const cs = (spec?: KObject, extra: KObject = {}): KObject => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name: 'web', namespace: 'shop', generation: 2 },
  ...(spec === undefined ? {} : { spec }),
  ...extra,
});
const asts = (spec?: KObject, extra: KObject = {}): KObject => ({
  apiVersion: 'apps.kruise.io/v1beta1',
  kind: 'StatefulSet',
  metadata: { name: 'kv', namespace: 'data', generation: 2 },
  ...(spec === undefined ? {} : { spec }),
  ...extra,
});
const modules = [
  { name: 'CloneSet', m: cloneSet, make: cs },
  { name: 'Advanced StatefulSet', m: advancedStatefulSet, make: asts },
] as const;

describe.each(modules)('$name: missing and mistyped fields', ({ m, make }) => {
  it('InterpretReplica defaults replicas to 1 without spec, and refuses a non-integer with 400', async () => {
    expect(await m.getReplicas!(make())).toEqual({ replicas: 1 });
    expect((await m.getReplicas!(make({ replicas: null }))).replicas).toBe(1);
    for (const bad of ['3', 2.5, -1]) {
      const call = () => m.getReplicas!(make({ replicas: bad }));
      expect(call).toThrow(InterpreterError);
      expect(call).toThrow(/spec\.replicas/);
    }
  });

  it('ReviseReplica creates spec when missing and leaves strategies it cannot read alone', () => {
    expect(m.reviseReplica!(make(), 3)).toMatchObject({ spec: { replicas: 3 } });
    const odd = make({ replicas: 10, updateStrategy: 'weird', scaleStrategy: { maxUnavailable: '2' } });
    expect(m.reviseReplica!(structuredClone(odd), 4)).toEqual({ ...odd, spec: { ...odd.spec, replicas: 4 } });
  });

  it('Retain copes with an observed object without spec', () => {
    const desired = make({ replicas: 3 }, { metadata: { name: 'x', labels: { 'resourcetemplate.karmada.io/retain-replicas': 'true' } } });
    expect(m.retain!(structuredClone(desired), make())).toEqual(desired);
  });

  it('InterpretStatus without status reports zeros and empty strings, and ignores a non-numeric generation annotation', () => {
    const status = m.reflectStatus!(make({}, { metadata: { generation: 3, annotations: { 'resourcetemplate.karmada.io/generation': 'soon' } } })) as Record<
      string,
      unknown
    >;
    expect(status.generation).toBe(3);
    expect(status).not.toHaveProperty('resourceTemplateGeneration');
    for (const [key, value] of Object.entries(status)) {
      if (key !== 'generation') expect([0, '']).toContain(value);
    }
  });

  it('InterpretStatus turns mistyped counters into 0 instead of passing them on', () => {
    const status = m.reflectStatus!(make({}, { status: { replicas: '3', readyReplicas: 2.5, updateRevision: 7 } })) as Record<string, unknown>;
    expect(status).toMatchObject({ replicas: 0, readyReplicas: 0, updateRevision: '' });
  });

  it('InterpretHealth is false without status or with an empty one, and defaults replicas to 1', () => {
    expect(m.interpretHealth!(make({ replicas: 2 }))).toBe(false);
    expect(m.interpretHealth!(make({ replicas: 2 }, { status: {} }))).toBe(false);
    const noReplicas = make({}, { metadata: { generation: 1 }, status: { observedGeneration: 1, updatedReplicas: 1, availableReplicas: 1 } });
    expect(m.interpretHealth!(noReplicas)).toBe(true);
    expect(m.interpretHealth!({ ...noReplicas, status: { ...noReplicas.status, availableReplicas: 0 } })).toBe(false);
  });

  it('InterpretDependency without a pod template is empty', () => {
    expect(m.getDependencies!(make())).toEqual([]);
    expect(m.getDependencies!(make({ template: 'nope' }))).toEqual([]);
  });
});

// Arbitrary reflected member statuses, as InterpretStatus would produce them from sparse objects.
const memberStatus = fc.record(
  {
    replicas: fc.nat(50),
    readyReplicas: fc.nat(50),
    availableReplicas: fc.nat(50),
    updatedReplicas: fc.nat(50),
    updatedAvailableReplicas: fc.nat(50),
    currentReplicas: fc.nat(50),
    collisionCount: fc.nat(3),
    observedGeneration: fc.nat(6),
    generation: fc.nat(6),
    resourceTemplateGeneration: fc.nat(6),
    updateRevision: fc.constantFrom('', 'web-6d9f', 'web-8a1e'),
    currentRevision: fc.constantFrom('', 'web-5c7b'),
    labelSelector: fc.constantFrom('', 'app=web'),
    conditions: fc.array(
      fc.record({
        type: fc.constantFrom('Progressing', 'FailedScale', 'FailedUpdate'),
        status: fc.constantFrom('True', 'False', 'Unknown'),
        message: fc.constantFrom('a', 'b'),
      }),
      { maxLength: 2 },
    ),
    volumeClaims: fc.array(fc.record({ volumeClaimName: fc.constantFrom('data', 'wal'), compatibleReplicas: fc.nat(5), compatibleReadyReplicas: fc.nat(5) }), {
      maxLength: 2,
    }),
  },
  { requiredKeys: [] },
);
const items = fc.array(
  fc.record(
    { clusterName: fc.constantFrom('member1', 'member2', 'member3'), status: fc.option(memberStatus, { nil: undefined }), applied: fc.boolean() },
    { requiredKeys: ['clusterName'] },
  ),
  { maxLength: 4 },
) as fc.Arbitrary<AggregatedStatusItem[]>;

describe.each(modules)('$name: AggregateStatus', ({ m, make }) => {
  const template = (generation: number, previous?: number) =>
    make(
      { replicas: 4, selector: { matchLabels: { app: 'web' } } },
      { metadata: { name: 'web', namespace: 'shop', generation }, ...(previous === undefined ? {} : { status: { observedGeneration: previous } }) },
    );

  it('treats an absent list and an empty list alike', () => {
    expect(m.aggregateStatus!(template(3, 1), undefined)).toEqual(m.aggregateStatus!(template(3, 1), []));
    expect((m.aggregateStatus!(template(3, 1), []) as KObject).status.observedGeneration).toBe(3);
  });

  it('counts an item without status as not current and ignores it in the sums', () => {
    const out = m.aggregateStatus!(template(3, 2), [
      { clusterName: 'member1', status: { replicas: 2, observedGeneration: 3, generation: 3, resourceTemplateGeneration: 3 } },
      { clusterName: 'member2', appliedMessage: 'denied' },
    ]) as KObject;
    expect(out.status.observedGeneration).toBe(2);
    expect(out.status.replicas).toBe(2);
  });

  it('is idempotent and never moves observedGeneration backwards', () => {
    fc.assert(
      fc.property(fc.nat(6), fc.option(fc.nat(8), { nil: undefined }), items, (generation, previous, list) => {
        const once = m.aggregateStatus!(template(generation, previous), structuredClone(list)) as KObject;
        const twice = m.aggregateStatus!(structuredClone(once), structuredClone(list)) as KObject;
        expect(twice).toEqual(once);
        if (previous !== undefined) expect(once.status.observedGeneration).toBeGreaterThanOrEqual(Math.min(previous, generation));
        // The counters are always written, even when nothing reports them.
        expect(typeof once.status.updatedAvailableReplicas).toBe('number');
      }),
    );
  });
});

describe('preservation rules always yield valid labels', () => {
  it.each(modules)('$name: every recommended rule evaluates without error on sparse and full statuses', ({ m, make }) => {
    const observed = [
      make({ replicas: 1 }),
      make({ replicas: 3 }, { status: { observedGeneration: 2 } }),
      make(
        { replicas: 3 },
        {
          status: {
            replicas: 3,
            updatedReplicas: 3,
            currentReplicas: 3,
            expectedUpdatedReplicas: 3,
            updateRevision: 'web-6d9f8c7b5a',
            currentRevision: 'web-5c7b9d6f48',
          },
        },
      ),
    ];
    expect(m.preservation?.length).toBeGreaterThan(0);
    for (const o of observed) {
      const result = evaluatePreservation(m.preservation!, m.reflectStatus!(o));
      expect(result.errors).toEqual([]);
      expect(result.warnings).toEqual([]);
      expect(Object.keys(result.labels)).toEqual(m.preservation!.map((r) => r.aliasLabelName));
    }
  });
});

describe('preservation values', () => {
  it('carries the revision and counters into label values', () => {
    const member = cs({ replicas: 3 }, { status: { updateRevision: 'web-6d9f', updatedReplicas: 2, expectedUpdatedReplicas: 2 } });
    expect(evaluatePreservation(cloneSet.preservation!, cloneSet.reflectStatus!(member)).labels).toEqual({
      'failover.karmada.io/update-revision': 'web-6d9f',
      'failover.karmada.io/updated-replicas': '2',
      'failover.karmada.io/expected-updated-replicas': '2',
    });
    const kv = asts({ replicas: 3 }, { status: { updatedReplicas: 3, currentReplicas: 0, currentRevision: 'kv-7f9c', updateRevision: 'kv-86b4' } });
    expect(evaluatePreservation(advancedStatefulSet.preservation!, advancedStatefulSet.reflectStatus!(kv)).labels).toEqual({
      'failover.karmada.io/current-revision': 'kv-7f9c',
      'failover.karmada.io/update-revision': 'kv-86b4',
      'failover.karmada.io/current-replicas': '0',
      'failover.karmada.io/updated-replicas': '3',
    });
  });
});

// Kruise's reserveOrdinals (apis/apps/v1beta1/statefulset_types.go) can be set in the member (pod
// migration) or by the control plane; Retain records which, as Karmada records managed annotations
// (karmada-io/karmada pkg/util/annotation.go), so a removal from the template wins.
describe('Advanced StatefulSet reserveOrdinals ownership', () => {
  const RECORD = 'interpreter.karmada.io/managed-fields';
  const reserveArbitrary = fc.option(fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }), { nil: undefined });
  const withRecord = (obj: KObject, recorded: boolean): KObject =>
    recorded ? { ...obj, metadata: { ...obj.metadata, annotations: { [RECORD]: 'spec.reserveOrdinals' } } } : obj;

  it('template reserves win; recorded and removed are released; member-only reserves stay', () => {
    fc.assert(
      fc.property(reserveArbitrary, reserveArbitrary, fc.boolean(), (template, memberValue, recorded) => {
        const desired = asts(template === undefined ? { replicas: 3 } : { replicas: 3, reserveOrdinals: template });
        const observed = withRecord(asts(memberValue === undefined ? { replicas: 3 } : { replicas: 3, reserveOrdinals: memberValue }), recorded);
        const result = advancedStatefulSet.retain!(structuredClone(desired), observed) as KObject;
        const templateSets = (template ?? []).length > 0;
        const expected = templateSets || recorded || (memberValue ?? []).length === 0 ? template : memberValue;
        expect(result.spec.reserveOrdinals).toEqual(expected);
        expect(result.metadata.annotations?.[RECORD]).toBe(templateSets ? 'spec.reserveOrdinals' : undefined);
      }),
    );
  });

  it('records reserveOrdinals set by the template in the manifest ReviseReplica builds', () => {
    const revised = advancedStatefulSet.reviseReplica!(asts({ replicas: 4, reserveOrdinals: [2] }), 2) as KObject;
    expect(revised.metadata.annotations).toEqual({ [RECORD]: 'spec.reserveOrdinals' });
    expect((advancedStatefulSet.reviseReplica!(asts({ replicas: 4 }), 2) as KObject).metadata).toEqual(asts().metadata);
  });
});

describe('Advanced StatefulSet governing Service option', () => {
  const withService = (annotations: Record<string, string>, serviceName?: string) =>
    asts({ serviceName, template: { spec: { containers: [{ name: 'kv', image: 'kv:1' }] } } }, { metadata: { name: 'kv', namespace: 'data', annotations } });
  it('adds the Service only when the template opts in and names one', () => {
    const service = { apiVersion: 'v1', kind: 'Service', namespace: 'data', name: 'kv-headless' };
    expect(advancedStatefulSet.getDependencies!(withService({ [PROPAGATE_GOVERNING_SERVICE_ANNOTATION]: 'true' }, 'kv-headless'))).toEqual([service]);
    expect(advancedStatefulSet.getDependencies!(withService({ [PROPAGATE_GOVERNING_SERVICE_ANNOTATION]: 'false' }, 'kv-headless'))).toEqual([]);
    expect(advancedStatefulSet.getDependencies!(withService({ [PROPAGATE_GOVERNING_SERVICE_ANNOTATION]: 'true' }))).toEqual([]);
  });
});

describe('shared helpers', () => {
  it('formats label selectors as Kubernetes prints them', () => {
    expect(formatLabelSelector({ matchLabels: { b: '2', a: '1' } })).toBe('a=1,b=2');
    expect(
      formatLabelSelector({
        matchExpressions: [
          { key: 'zone', operator: 'NotIn', values: ['z2', 'z1'] },
          { key: 'canary', operator: 'DoesNotExist' },
          { key: 'app', operator: 'Exists' },
        ],
      }),
    ).toBe('app,!canary,zone notin (z1,z2)');
    expect(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Near' }] })).toBe('');
    expect(formatLabelSelector(undefined)).toBe('');
    expect(formatLabelSelector({})).toBe('');
  });

  it('merges conditions: worst status per type, with every such cluster named', () => {
    const merged = mergeConditions([
      {
        clusterName: 'm1',
        conditions: [
          { type: 'Ready', status: 'Unknown', message: 'probing' },
          { type: 'FailedScale', status: 'False' },
        ],
      },
      {
        clusterName: 'm2',
        conditions: [
          { type: 'Ready', status: 'True', message: 'ok' },
          { type: 'FailedScale', status: 'False' },
        ],
      },
      { clusterName: 'm3', conditions: 'garbage' },
    ]);
    expect(merged).toEqual([
      { type: 'Ready', status: 'Unknown', message: 'm1: probing' },
      { type: 'FailedScale', status: 'False' },
    ]);
    expect(mergeConditions([{ clusterName: 'm1', conditions: [] }])).toBeUndefined();
  });
});

describe('spec.replicas outside int32', () => {
  it.each([2147483648, 2 ** 53 + 1, Infinity, -1, 1.5])('%s is a 400 naming the field, not a 500', async (replicas) => {
    const outcome = await interpret(new Registry({ 'builtin-ts': [cloneSet] }), {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      operation: 'InterpretReplica',
      object: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'web' }, spec: { replicas } },
    });
    expect(outcome).toMatchObject({ ok: false, code: 400, message: expect.stringMatching(/spec\.replicas must be an integer from 0 to 2147483647/) });
  });
});

describe('request-sized inputs stay linear and never overflow the stack', () => {
  it('aggregates more member statuses than a spread argument list can hold', () => {
    const items: AggregatedStatusItem[] = Array.from({ length: 150_000 }, (_, i) => ({
      clusterName: `member${i}`,
      applied: true,
      status: { replicas: 1, collisionCount: i % 7, conditions: [{ type: 'FailedScale', status: i === 42 ? 'True' : 'False' }] },
    }));
    const out = cloneSet.aggregateStatus!(cs({ replicas: 1 }), items) as KObject;
    expect(out.status.replicas).toBe(150_000);
    expect(out.status.collisionCount).toBe(6);
    expect(out.status.conditions).toEqual([{ type: 'FailedScale', status: 'True' }]);
  });

  it('formats no selector from values that are not strings, however deeply nested', () => {
    let nested: unknown = 'x';
    for (let depth = 0; depth < 100_000; depth++) nested = [nested];
    expect(formatLabelSelector({ matchLabels: { app: nested } })).toBe('');
    expect(formatLabelSelector({ matchExpressions: [{ key: 'app', operator: 'In', values: [nested] }] })).toBe('');
    expect(formatLabelSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] })).toBe(
      'app=web,tier in (a,b)',
    );
  });
});
