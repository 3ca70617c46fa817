// Large requests' synchronous steps (decoding, interpreting, recording) take turns with other work.
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { OnePerTurn } from '../../src/server/one-per-turn.ts';

describe('OnePerTurn', () => {
  it('runs queued steps in order, never two in the same event-loop turn', async () => {
    const steps = new OnePerTurn();
    const order: string[] = [];
    const done = [1, 2, 3].map((n) =>
      steps.run(() => {
        order.push(`step ${n}`);
        // Work that became ready during a step (a probe's I/O, here an immediate) runs before the next step.
        setImmediate(() => order.push(`after ${n}`));
        return n * 10;
      }),
    );
    expect(order).toEqual([]); // nothing runs in the caller's turn
    expect(await Promise.all(done)).toEqual([10, 20, 30]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['step 1', 'after 1', 'step 2', 'after 2', 'step 3', 'after 3']);
  });

  it('a step that throws rejects its own call and the queue goes on', async () => {
    const steps = new OnePerTurn();
    const failing = steps.run(() => {
      throw new Error('bad body');
    });
    const next = steps.run(() => 'next');
    await expect(failing).rejects.toThrow('bad body');
    await expect(next).resolves.toBe('next');
  });

  it("runs each step in its caller's async context, not in that of the step before it", async () => {
    const steps = new OnePerTurn();
    const request = new AsyncLocalStorage<string>();
    const seen: Array<string | undefined> = [];
    // Request a's first step queues a's second step while b's step waits: the second runs after b's,
    // scheduled from b's turn, and must still see a.
    const a = request.run('a', () =>
      steps.run(() => {
        seen.push(request.getStore());
        return steps.run(() => seen.push(request.getStore()));
      }),
    );
    const b = request.run('b', () => steps.run(() => seen.push(request.getStore())));
    await Promise.all([a, b]);
    expect(seen).toEqual(['a', 'b', 'a']);
  });
});
