import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEADLINE_TICK_MS, DeadlineWatch } from '../../src/server/deadline-watch.ts';

describe('DeadlineWatch', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires once, within one tick after the deadline', () => {
    const watch = new DeadlineWatch();
    const fired = vi.fn();
    watch.watch(100, fired);
    vi.advanceTimersByTime(99);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(DEADLINE_TICK_MS + 1);
    expect(fired).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('does not fire for work that finished first', () => {
    const watch = new DeadlineWatch();
    const fired = vi.fn();
    const watched = watch.watch(50, fired);
    watch.done(watched);
    vi.advanceTimersByTime(1000);
    expect(fired).not.toHaveBeenCalled();
    expect(watch.size).toBe(0);
  });

  it('keeps independent deadlines apart and stops ticking when nothing is watched', () => {
    const watch = new DeadlineWatch();
    const early = vi.fn();
    const late = vi.fn();
    watch.watch(30, early);
    watch.watch(300, late);
    vi.advanceTimersByTime(50);
    expect(early).toHaveBeenCalledTimes(1);
    expect(late).not.toHaveBeenCalled();
    vi.advanceTimersByTime(300);
    expect(late).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(DEADLINE_TICK_MS * 2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("race: the work's value when it is on time, onTimeout() when not, the work's error passed on", async () => {
    const watch = new DeadlineWatch();
    await expect(watch.race(Promise.resolve('done'), 100, () => 'late')).resolves.toBe('done');
    await expect(watch.race(Promise.reject(new Error('broken')), 100, () => 'late')).rejects.toThrow('broken');
    const slow = watch.race(new Promise<string>(() => undefined), 100, () => 'late');
    vi.advanceTimersByTime(100 + DEADLINE_TICK_MS);
    await expect(slow).resolves.toBe('late');
    expect(watch.size).toBe(0);
  });
});
