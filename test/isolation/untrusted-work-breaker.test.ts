// UntrustedWork's keys for the worker pool's circuit breaker, on fake workers and fake time (decision 0016):
// a breaker judges one script of one customization, and state-preservation JSONPath (rules sent by each
// /preserve client) has none. Fake workers never answer unless told to, so every call they leave is killed
// at its time limit plus the pool's grace.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { frame, unframe } from '../../src/isolation/protocol.ts';
import { UntrustedWork } from '../../src/isolation/untrusted-work.ts';
import { CIRCUIT_OPEN_MESSAGE, type PoolWorker } from '../../src/isolation/worker-pool.ts';

class FakeWorker extends EventEmitter implements PoolWorker {
  readonly received: Array<Record<string, any>> = [];
  postMessage(text: string): void {
    this.received.push(unframe(text).header);
  }
  terminate(): Promise<number> {
    queueMicrotask(() => this.emit('exit', 1));
    return Promise.resolve(1);
  }
  getHeapStatistics() {
    return Promise.resolve({ used_heap_size: 1000, external_memory: 0 });
  }
  ref(): void {}
  unref(): void {}
  /** Answers its last task in time, as the worker module does a call that succeeded. */
  answer(payload: string): void {
    const id = this.received.at(-1)!.id as number;
    this.emit('message', frame({ id, ok: true, prints: [], compiled: false, idleBytes: 1000 }, payload));
  }
}

const LIMIT_MS = 100;
const KILLED_AFTER_MS = LIMIT_MS + 250; // the pool's default grace

describe('circuit breaker keys of untrusted work', () => {
  let workers: FakeWorker[];
  let work: UntrustedWork;

  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
    workers = [];
    work = new UntrustedWork({
      workers: 1,
      luaTimeoutMs: LIMIT_MS,
      preserveTimeoutMs: LIMIT_MS,
      createWorker: () => {
        const worker = new FakeWorker();
        workers.push(worker);
        queueMicrotask(() => worker.emit('message', frame({ ready: true, idleBytes: 1000 })));
        return worker;
      },
    });
    await work.start();
  });
  afterEach(async () => {
    await work.close();
    vi.useRealTimers();
  });

  /** Settles a promise into its value or error, without an unhandled rejection. */
  function outcome<T>(promise: Promise<T>): { value?: T; error?: Error } {
    const result: { value?: T; error?: Error } = {};
    promise.then(
      (value) => (result.value = value),
      (error: Error) => (result.error = error),
    );
    return result;
  }
  const sentCount = () => workers.reduce((n, w) => n + w.received.length, 0);
  const health = (script: string) => work.call('InterpretHealth', script, [{ kind: 'Pod' }], { key: 'my-health' });

  it('after a reload changes a runaway script, the new script of the same customization runs at once; the old one stays refused', async () => {
    const runaway = 'function InterpretHealth(obj) while true do end end';
    for (let i = 0; i < 3; i++) {
      const call = outcome(health(runaway));
      await vi.advanceTimersByTimeAsync(KILLED_AFTER_MS);
      expect(call.error?.message).toBe(`stopped after ${LIMIT_MS} ms: time limit exceeded`);
    }
    const again = outcome(health(runaway));
    await vi.advanceTimersByTimeAsync(0);
    expect(again.error?.message).toMatch(new RegExp(`^${CIRCUIT_OPEN_MESSAGE.replace(/[()]/g, '\\$&')}: its last 3 calls timed out`));
    const before = sentCount();

    const fixed = outcome(health('function InterpretHealth(obj) return true end'));
    await vi.advanceTimersByTimeAsync(0);
    expect(sentCount()).toBe(before + 1);
    workers.at(-1)!.answer('true');
    await vi.advanceTimersByTimeAsync(0);
    expect(fixed.value).toBe(true);
    // Metrics name the customization, whichever of its scripts' circuits it is.
    expect(work.stats().circuits).toEqual([{ key: 'my-health', state: 'open', refused: 1 }]);
  });

  it('state preservation has no breaker: calls keep running after any number of timeouts, each within its time limit', async () => {
    const rules = [{ jsonPath: '{.replicas}', destination: '{.spec.replicas}' }];
    for (let i = 0; i < 4; i++) {
      const call = outcome(work.evaluatePreservation(rules as never, { replicas: 1 }));
      await vi.advanceTimersByTimeAsync(KILLED_AFTER_MS);
      expect(call.error?.message).toBe(`evaluating the state preservation rules stopped after ${LIMIT_MS} ms: time limit exceeded`);
    }
    const next = outcome(work.evaluatePreservation(rules as never, { replicas: 1 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(workers.at(-1)!.received.at(-1)?.type).toBe('preserve');
    workers.at(-1)!.answer('{"retained":{}}');
    await vi.advanceTimersByTimeAsync(0);
    expect(next.value).toEqual({ retained: {} });
    expect(work.stats().circuits).toEqual([]);
  });
});
