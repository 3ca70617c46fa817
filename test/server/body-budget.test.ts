import { describe, expect, it } from 'vitest';
import { BodyBudget } from '../../src/server/body-budget.js';

/** Admits a call that records when it started; returns its release. */
function call(budget: BodyBudget, bytes: number, started: string[], name: string): () => void {
  return budget.admit(bytes, () => started.push(name));
}

describe('BodyBudget', () => {
  it('starts calls at once while they fit, and the next one when room is given back', () => {
    const budget = new BodyBudget(100);
    const started: string[] = [];
    const a = call(budget, 60, started, 'a');
    const b = call(budget, 40, started, 'b');
    call(budget, 10, started, 'c');
    expect(started).toEqual(['a', 'b']);
    expect([budget.bytesInUse, budget.waiting]).toEqual([100, 1]);
    b();
    expect(started).toEqual(['a', 'b', 'c']);
    expect([budget.bytesInUse, budget.waiting]).toEqual([70, 0]);
    a();
    expect(budget.bytesInUse).toBe(10);
  });

  it('always lets one call through, however large', () => {
    const budget = new BodyBudget(100);
    const started: string[] = [];
    const huge = call(budget, 5000, started, 'huge');
    call(budget, 1, started, 'small');
    expect(started).toEqual(['huge']);
    huge();
    expect(started).toEqual(['huge', 'small']);
  });

  it('keeps arrival order: a small call does not overtake a large one that waits', () => {
    const budget = new BodyBudget(100);
    const started: string[] = [];
    const first = call(budget, 90, started, 'first');
    call(budget, 50, started, 'large');
    call(budget, 5, started, 'small');
    expect(started).toEqual(['first']);
    first();
    expect(started).toEqual(['first', 'large', 'small']);
  });

  it('a waiting call that is released (its client went away) leaves the queue without starting', () => {
    const budget = new BodyBudget(100);
    const started: string[] = [];
    const first = call(budget, 100, started, 'first');
    const gone = call(budget, 100, started, 'gone');
    call(budget, 10, started, 'next');
    gone();
    expect(budget.waiting).toBe(1);
    first();
    expect(started).toEqual(['first', 'next']);
    expect(budget.bytesInUse).toBe(10);
  });

  it('releasing twice gives the bytes back once', () => {
    const budget = new BodyBudget(100);
    const started: string[] = [];
    const a = call(budget, 50, started, 'a');
    call(budget, 50, started, 'b');
    a();
    a();
    expect(budget.bytesInUse).toBe(50);
  });
});
