// Workflow AggregateStatus edge cases: order independence, idempotence, and what one cluster copies.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregateStatus } from '../../interpreters/argoproj.io/v1alpha1/Workflow/aggregate.ts';
import type { AggregatedStatusItem } from '../../src/interpreter/types.ts';

const template = () => ({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', metadata: { name: 'w', namespace: 'ci' }, spec: { entrypoint: 'main' } });

const minute = fc.integer({ min: 0, max: 59 }).map((m) => `2026-03-01T10:${String(m).padStart(2, '0')}:00Z`);
const itemArbitrary = fc.record({
  clusterName: fc.constantFrom('member1', 'member2', 'member3', 'member4'),
  status: fc.option(
    fc.record(
      {
        phase: fc.constantFrom('', 'Pending', 'Running', 'Succeeded', 'Failed', 'Error'),
        startedAt: minute,
        finishedAt: minute,
        progress: fc.tuple(fc.nat(9), fc.nat(9)).map(([done, extra]) => `${done}/${done + extra}`),
        message: fc.constantFrom('boom', 'pod deleted'),
      },
      { requiredKeys: ['phase'] },
    ),
    { nil: undefined },
  ),
});

describe('Workflow aggregateStatus', () => {
  it('does not depend on the order of the items (apart from the order of messages)', () => {
    fc.assert(
      fc.property(fc.array(itemArbitrary, { minLength: 2, maxLength: 4 }), (items) => {
        const forward = aggregateStatus(template(), structuredClone(items) as AggregatedStatusItem[]).status;
        const backward = aggregateStatus(template(), structuredClone(items).reverse() as AggregatedStatusItem[]).status;
        const { message: _a, ...forwardRest } = forward;
        const { message: _b, ...backwardRest } = backward;
        expect(backwardRest).toEqual(forwardRest);
        expect((backward.message ?? '').split('; ').sort()).toEqual((forward.message ?? '').split('; ').sort());
      }),
    );
  });

  it('gives a result that does not change when aggregated again (Karmada writes only on change)', () => {
    fc.assert(
      fc.property(fc.array(itemArbitrary, { minLength: 1, maxLength: 4 }), (items) => {
        const once = aggregateStatus(template(), structuredClone(items) as AggregatedStatusItem[]);
        const twice = aggregateStatus(structuredClone(once), structuredClone(items) as AggregatedStatusItem[]);
        expect(twice).toEqual(once);
      }),
    );
  });

  it('marks the workflow completed only when every run has ended, and only then reports finishedAt', () => {
    fc.assert(
      fc.property(fc.array(itemArbitrary, { minLength: 2, maxLength: 4 }), (items) => {
        const status = aggregateStatus(template(), structuredClone(items) as AggregatedStatusItem[]).status;
        const allEnded = items.every((item) => ['Succeeded', 'Failed', 'Error'].includes(item.status?.phase ?? ''));
        expect(status.conditions).toEqual([{ type: 'Completed', status: allEnded ? 'True' : 'False' }]);
        if (!allEnded) expect(status).not.toHaveProperty('finishedAt');
        if (allEnded) expect(['Succeeded', 'Failed', 'Error']).toContain(status.phase);
      }),
    );
  });

  it('sums progress like Argo (done and total separately)', () => {
    const items: AggregatedStatusItem[] = [
      { clusterName: 'a', status: { phase: 'Running', progress: '1/3' } },
      { clusterName: 'b', status: { phase: 'Running', progress: 'garbage' } },
      { clusterName: 'c', status: { phase: 'Running', progress: '4/4' } },
    ];
    expect(aggregateStatus(template(), items).status.progress).toBe('5/7');
  });

  it('leaves the status alone when Karmada sends no items or an empty list', () => {
    const withStatus = { ...template(), status: { phase: 'Running' } };
    expect(aggregateStatus(structuredClone(withStatus), undefined)).toEqual(withStatus);
    expect(aggregateStatus(structuredClone(withStatus), [])).toEqual(withStatus);
  });

  it('copies only Workflow status fields from a single cluster and replaces a stale template status', () => {
    const stale = { ...template(), status: { phase: 'Failed', message: 'old cluster', finishedAt: '2026-03-01T09:00:00Z' } };
    const result = aggregateStatus(stale, [
      { clusterName: 'member2', applied: true, status: { phase: 'Running', progress: '0/3', nodeSummary: { Running: 1 }, suspended: false, shutdown: 'Stop' } },
    ]);
    expect(result.status).toEqual({ phase: 'Running', progress: '0/3' });
  });

  it('treats a run without status during failover as not started', () => {
    const result = aggregateStatus(template(), [
      { clusterName: 'old', status: { phase: 'Failed', message: 'node lost', startedAt: '2026-03-01T10:00:00Z' } },
      { clusterName: 'new', applied: true },
    ]);
    expect(result.status).toEqual({
      startedAt: '2026-03-01T10:00:00Z',
      message: 'old: node lost',
      conditions: [{ type: 'Completed', status: 'False' }],
    });
  });
});
