import { describe, expect, it, vi } from 'vitest';
import { KeepAwake, pollWindowMs } from '../../src/isolation/keep-awake.ts';

/** A KeepAwake on a hand-driven clock: `turn()` runs the polls scheduled so far, as one event-loop turn would. */
function manual() {
  let now = 0;
  let scheduled: Array<() => void> = [];
  const awake = new KeepAwake({ now: () => now, schedule: (poll) => scheduled.push(poll) });
  return {
    awake,
    advance: (ms: number) => (now += ms),
    pending: () => scheduled.length,
    turn: () => {
      const polls = scheduled;
      scheduled = [];
      for (const poll of polls) poll();
    },
  };
}

describe('KeepAwake', () => {
  it('polls turn after turn until its window has passed, then lets the loop sleep', () => {
    const m = manual();
    m.awake.stayAwake(1);
    expect(m.awake.awake).toBe(true);
    for (let elapsed = 0; elapsed < 1; elapsed += 0.25) {
      expect(m.pending()).toBe(1);
      m.turn();
      m.advance(0.25);
    }
    m.turn(); // the first turn at or past the window
    expect(m.pending()).toBe(0);
    expect(m.awake.awake).toBe(false);
  });

  it('extends a running window without a second chain of polls', () => {
    const m = manual();
    m.awake.stayAwake(1);
    m.advance(0.5);
    m.awake.stayAwake(1); // now until 1.5
    expect(m.pending()).toBe(1);
    m.advance(0.9);
    m.turn();
    expect(m.awake.awake).toBe(true);
    m.advance(0.2);
    m.turn();
    expect(m.awake.awake).toBe(false);
  });

  it('stops at the next turn after rest(), and can be woken again', () => {
    const m = manual();
    m.awake.stayAwake(1);
    m.awake.rest();
    m.turn();
    expect(m.awake.awake).toBe(false);
    expect(m.pending()).toBe(0);
    m.awake.stayAwake(1);
    expect(m.awake.awake).toBe(true);
    expect(m.pending()).toBe(1);
  });

  it('does nothing for an empty window', () => {
    const m = manual();
    m.awake.stayAwake(0);
    expect(m.awake.awake).toBe(false);
    expect(m.pending()).toBe(0);
  });

  it('keeps a real event loop turning (immediates), and ends by itself', async () => {
    const awake = new KeepAwake();
    let turns = 0;
    const count = () => {
      turns++;
      if (awake.awake) setImmediate(count);
    };
    awake.stayAwake(20);
    setImmediate(count);
    await vi.waitFor(() => expect(awake.awake).toBe(false), { timeout: 5000 });
    // Polls ran as immediates, one per turn, beside the counter: the loop kept turning, never parked.
    expect(turns).toBeGreaterThan(1);
  });
});

describe('pollWindowMs', () => {
  it('polls twice as long as the last wait when that was short, at most the cap', () => {
    expect(pollWindowMs(0.2, 1)).toBeCloseTo(0.4);
    expect(pollWindowMs(0.7, 1)).toBe(1);
    expect(pollWindowMs(1, 1)).toBe(1);
  });

  it('does not poll after a long wait (sparse calls) or before any (no estimate yet)', () => {
    expect(pollWindowMs(1.01, 1)).toBe(0);
    expect(pollWindowMs(250, 1)).toBe(0);
    expect(pollWindowMs(0, 1)).toBe(0);
  });
});
