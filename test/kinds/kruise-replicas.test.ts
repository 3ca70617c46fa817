// Proportional splitting for ReviseReplica (src/k8s/replicas.ts): the promises the README makes,
// checked over arbitrary allocations rather than a few hand-picked numbers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scaledValueFromIntOrPercent, splitBudget, splitKeepBack } from '../../src/k8s/replicas.ts';

/** A total T ≥ 1 and a split of it into 1..6 positive shares (what a Divided binding assigns). */
const allocation = fc
  .array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 })
  .map((shares) => ({ shares, total: shares.reduce((a, b) => a + b, 0) }));

describe('scaledValueFromIntOrPercent', () => {
  it('reads integers as they are and percentages of the total in the requested direction', () => {
    expect(scaledValueFromIntOrPercent(7, 10, true)).toBe(7);
    expect(scaledValueFromIntOrPercent('30%', 6, true)).toBe(2);
    expect(scaledValueFromIntOrPercent('30%', 6, false)).toBe(1);
    expect(scaledValueFromIntOrPercent('100%', 6, false)).toBe(6);
  });
  it('refuses what Kubernetes refuses', () => {
    for (const bad of ['3', '30', '%', '-5%', '3.5%', 2.5, null, undefined, {}]) {
      expect(scaledValueFromIntOrPercent(bad, 10, true)).toBeUndefined();
    }
  });
});

describe('splitKeepBack (partition)', () => {
  it('never lets the members update more pods than the global partition allows', () => {
    fc.assert(
      fc.property(allocation, fc.integer({ min: 0, max: 60 }), ({ shares, total }, partition) => {
        const split = shares.map((r) => splitKeepBack(partition, total, r) as number);
        const kept = split.reduce((a, b) => a + b, 0);
        const wanted = Math.min(partition, total);
        expect(kept).toBeGreaterThanOrEqual(wanted); // conservative
        expect(kept).toBeLessThanOrEqual(wanted + shares.length - 1); // by at most one per extra cluster
        split.forEach((p, i) => {
          expect(p).toBeGreaterThanOrEqual(0);
          expect(p).toBeLessThanOrEqual(shares[i]!);
        });
      }),
    );
  });
  it('gives the whole workload its own partition back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 0, max: 100 }), (t, p) => {
        expect(splitKeepBack(p, t, t)).toBe(Math.min(p, t));
      }),
    );
  });
  it('passes percentages and invalid values through unchanged', () => {
    for (const v of ['30%', '3', -1, 1.5, undefined, null]) expect(splitKeepBack(v, 10, 4)).toBe(v);
    expect(splitKeepBack(3, 0, 0)).toBe(3);
  });
});

describe('splitBudget (maxUnavailable / maxSurge)', () => {
  it('gives each member at least 1 and at most its share, within the global budget up to the floor', () => {
    fc.assert(
      fc.property(allocation, fc.integer({ min: 1, max: 60 }), ({ shares, total }, budget) => {
        const split = shares.map((r) => splitBudget(budget, total, r) as number);
        split.forEach((m, i) => {
          expect(m).toBeGreaterThanOrEqual(1);
          expect(m).toBeLessThanOrEqual(shares[i]!);
        });
        // Only the max(1, ·) floor can exceed the global budget, by at most one per member.
        const raised = split.filter((_m, i) => Math.floor((Math.min(budget, total) * shares[i]!) / total) === 0).length;
        expect(split.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(Math.min(budget, total) + raised);
      }),
    );
  });
  it('keeps 0 as 0 and percentages unchanged', () => {
    expect(splitBudget(0, 10, 3)).toBe(0);
    expect(splitBudget('25%', 10, 3)).toBe('25%');
    expect(splitBudget(2, 10, 6)).toBe(1);
    expect(splitBudget(40, 10, 3)).toBe(3);
  });
});
