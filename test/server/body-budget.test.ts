import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { BodyBudget, reservedBytes } from '../../src/server/body-budget.ts';

/** A call as the server makes one: recorded in `started` when it starts; returns what its response's close does. */
function call(budget: BodyBudget, bytes: number, started: string[], name: string): () => void {
  if (budget.take(bytes)) {
    started.push(name);
    return () => budget.give(bytes);
  }
  const cancel = budget.wait(bytes, () => started.push(name));
  return () => {
    if (!cancel()) budget.give(bytes);
  };
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

  it('cancel tells a call that had started (its bytes to give back) from one still waiting', () => {
    const budget = new BodyBudget(100);
    const first = budget.take(100);
    const cancel = budget.wait(10, () => undefined);
    expect(first).toBe(true);
    expect(cancel()).toBe(true);
    expect(cancel()).toBe(false);
    const started: string[] = [];
    const later = budget.wait(10, () => started.push('later'));
    budget.give(100);
    expect(started).toEqual(['later']);
    expect(later()).toBe(false);
    expect(budget.bytesInUse).toBe(10);
  });

  it('a call that waits behind others is not taken ahead of them, even when it would fit', () => {
    const budget = new BodyBudget(100);
    expect(budget.take(90)).toBe(true);
    budget.wait(50, () => undefined);
    expect(budget.take(5)).toBe(false);
  });
});

describe('reservedBytes', () => {
  const withLength = (value: string | undefined) => ({ headers: value === undefined ? {} : { 'content-length': value } }) as IncomingMessage;

  it.each([
    ['a declared length', '5000', 5000],
    ['an empty body', '0', 0],
    ['a declared length over the body limit: the limit (the rest is drained, not kept)', '99999999', 65536],
    ['no declared length (chunked): the limit', undefined, 65536],
    ['a length that is not a number: the limit', 'abc', 65536],
  ])('%s', (_name, value, expected) => {
    expect(reservedBytes(withLength(value), 65536)).toBe(expected);
  });
});
