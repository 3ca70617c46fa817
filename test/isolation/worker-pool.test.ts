// The worker pool on fake workers and fake time: which task runs where, and what stops a worker, decided
// by the pool alone (the real workers are in untrusted-work.test.ts). Deterministic and in milliseconds.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { frame, unframe } from '../../src/isolation/protocol.ts';
import {
  BREAKER_COOLDOWN_MS,
  BREAKER_WINDOW_MS,
  WorkerPool,
  WorkerTaskError,
  type PoolWorker,
  type StopReason,
  type WorkerPoolOptions,
} from '../../src/isolation/worker-pool.ts';

class FakeWorker extends EventEmitter implements PoolWorker {
  /** Each task as sent, with the (fake) time it was sent at. */
  readonly received: Array<{ header: Record<string, any>; payload: string; at: number }> = [];
  heapBytes = 1000;
  terminated = false;
  referenced = true;

  postMessage(text: string): void {
    this.received.push({ ...unframe(text), at: performance.now() });
  }
  terminate(): Promise<number> {
    if (!this.terminated) {
      this.terminated = true;
      queueMicrotask(() => this.emit('exit', 1));
    }
    return Promise.resolve(1);
  }
  getHeapStatistics() {
    return Promise.resolve({ used_heap_size: this.heapBytes, external_memory: 0 });
  }
  ref(): void {
    this.referenced = true;
  }
  unref(): void {
    this.referenced = false;
  }

  // --- what the worker module would do ---
  ready(): void {
    this.emit('message', frame({ ready: true, idleBytes: this.heapBytes }));
  }
  /** Answers the oldest task it has not answered yet. */
  answer(payload = '"done"'): void {
    const task = this.received.find((t) => !t.header.answered)!;
    task.header.answered = true;
    this.emit('message', frame({ id: task.header.id, idleBytes: this.heapBytes }, payload));
  }
  /** Answers the oldest unanswered task as the worker does a Lua call it stopped at its time limit. */
  answerTimeout(): void {
    const task = this.received.find((t) => !t.header.answered)!;
    task.header.answered = true;
    this.emit('message', frame({ id: task.header.id, idleBytes: this.heapBytes, ok: false, error: { message: '', luaMessage: 'timed out', timeout: true } }));
  }
  crash(code?: string): void {
    this.emit('error', Object.assign(new Error('boom'), { code }));
    this.terminated = true;
    this.emit('exit', 1);
  }
}

const flush = () => vi.advanceTimersByTimeAsync(0);

describe('WorkerPool', () => {
  let workers: FakeWorker[];
  let stops: Array<[StopReason, string]>;
  let pool: WorkerPool;

  function makePool(options: Partial<WorkerPoolOptions> & { readyAtOnce?: boolean } = {}): WorkerPool {
    const { readyAtOnce, ...poolOptions } = options;
    pool = new WorkerPool({
      workerUrl: new URL('file:///fake-worker.js'),
      size: 1,
      memoryLimitBytes: 1_000_000,
      graceMs: 250,
      memoryCheckMs: 50,
      restartBackoffMs: 1000,
      onStop: (reason, key) => stops.push([reason, key]),
      createWorker: () => {
        const worker = new FakeWorker();
        workers.push(worker);
        if (readyAtOnce) queueMicrotask(() => worker.ready());
        return worker;
      },
      ...poolOptions,
    });
    return pool;
  }

  /** Settles a promise into a value or the error it rejected with, without an unhandled rejection. */
  function outcome<T>(promise: Promise<T>): { value?: T; error?: WorkerTaskError; settled: boolean } {
    const result: { value?: T; error?: WorkerTaskError; settled: boolean } = { settled: false };
    promise.then(
      (value) => Object.assign(result, { value, settled: true }),
      (error: WorkerTaskError) => Object.assign(result, { error, settled: true }),
    );
    return result;
  }

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
    workers = [];
    stops = [];
  });
  afterEach(async () => {
    await pool.close();
    vi.useRealTimers();
  });

  it('sends a task as one message and resolves with the one message that answers it', async () => {
    makePool();
    const result = outcome(pool.run({ type: 'x' }, '[1,2]', { key: 'a', timeoutMs: 100 }));
    expect(workers).toHaveLength(1);
    expect(workers[0]!.received).toEqual([]); // not before the worker is ready
    workers[0]!.ready();
    expect(workers[0]!.received).toEqual([{ header: { type: 'x', id: 1 }, payload: '[1,2]', at: 0 }]);
    workers[0]!.emit('message', frame({ id: 99 }, '"stale"')); // an answer to no task of this worker is ignored
    workers[0]!.answer('{"ok":true}');
    await flush();
    expect(result.value).toEqual({ header: { id: 1, idleBytes: 1000 }, payload: '{"ok":true}' });
  });

  it('terminates a worker that has not answered at its time limit plus the grace, and replaces it at once', async () => {
    makePool();
    const result = outcome(pool.run({}, '', { key: 'spin', timeoutMs: 100 }));
    workers[0]!.ready();
    await vi.advanceTimersByTimeAsync(349);
    expect(workers[0]!.terminated).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(workers[0]!.terminated).toBe(true);
    expect(result.error).toBeInstanceOf(WorkerTaskError);
    expect(result.error!.reason).toBe('timeout');
    expect(result.error!.message).toBe('stopped after 100 ms: time limit exceeded');
    expect(stops).toEqual([['timeout', 'spin']]);
    expect(workers).toHaveLength(2); // the replacement, started before any other task asks for it
  });

  it('an answer in time clears the kill timer', async () => {
    makePool();
    const result = outcome(pool.run({}, '', { key: 'a', timeoutMs: 100 }));
    workers[0]!.ready();
    await vi.advanceTimersByTimeAsync(300);
    workers[0]!.answer();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(result.value?.payload).toBe('"done"');
    expect(workers[0]!.terminated).toBe(false);
    expect(stops).toEqual([]);
  });

  it('terminates a busy worker whose memory grew past 1.25× the limit over its idle level', async () => {
    makePool();
    const result = outcome(pool.run({}, '', { key: 'hog', timeoutMs: 60_000 }));
    workers[0]!.ready();
    workers[0]!.heapBytes = 1000 + 1_250_000; // exactly 1.25×: still allowed
    await vi.advanceTimersByTimeAsync(200);
    expect(workers[0]!.terminated).toBe(false);
    workers[0]!.heapBytes = 1000 + 1_250_001;
    await vi.advanceTimersByTimeAsync(50);
    expect(workers[0]!.terminated).toBe(true);
    expect(result.error!.reason).toBe('memory');
    expect(result.error!.message).toBe('stopped: memory limit of 1 MiB exceeded');
    expect(stops).toEqual([['memory', 'hog']]);
  });

  it('reads memory only while a worker is busy', async () => {
    makePool();
    const read = vi.spyOn(FakeWorker.prototype, 'getHeapStatistics');
    await vi.advanceTimersByTimeAsync(1000);
    expect(read).not.toHaveBeenCalled();
    const result = outcome(pool.run({}, '', { key: 'a', timeoutMs: 1000 }));
    workers[0]!.ready();
    await vi.advanceTimersByTimeAsync(120);
    expect(read).toHaveBeenCalledTimes(2);
    workers[0]!.answer();
    await vi.advanceTimersByTimeAsync(1000);
    expect(read).toHaveBeenCalledTimes(2); // the interval stopped at the first check that found none busy
    expect(result.settled).toBe(true);
    read.mockRestore();
  });

  it('names a worker that ran out of heap (V8 resource limits) as a memory stop, and any other death a crash', async () => {
    makePool();
    const first = outcome(pool.run({}, '', { key: 'a', timeoutMs: 1000 }));
    workers[0]!.ready();
    workers[0]!.crash('ERR_WORKER_OUT_OF_MEMORY');
    await flush();
    expect(first.error!.reason).toBe('memory');
    const second = outcome(pool.run({}, '', { key: 'b', timeoutMs: 1000 }));
    workers[1]!.ready();
    workers[1]!.crash();
    await flush();
    expect(second.error!.reason).toBe('crashed');
    expect(second.error!.message).toBe('the worker running the call crashed');
    expect(stops).toEqual([
      ['memory', 'a'],
      ['crashed', 'b'],
    ]);
  });

  it('after three workers die before becoming ready, fails what waits and starts none for the backoff', async () => {
    makePool();
    const waiting = outcome(pool.run({}, '', { key: 'a', timeoutMs: 1000 }));
    for (let i = 0; i < 3; i++) workers[i]!.crash(); // each replaced at once while a task waits, until the third
    await flush();
    expect(waiting.error!.reason).toBe('crashed');
    expect(waiting.error!.message).toBe('the worker for untrusted work could not start');
    expect(workers).toHaveLength(3);
    const later = outcome(pool.run({}, '', { key: 'a', timeoutMs: 1000 }));
    await vi.advanceTimersByTimeAsync(999);
    expect(workers).toHaveLength(3); // no spawning in a loop
    await vi.advanceTimersByTimeAsync(1);
    expect(workers).toHaveLength(4);
    workers[3]!.ready();
    workers[3]!.answer();
    await flush();
    expect(later.value?.payload).toBe('"done"');
  });

  it('takes queued tasks in turn across keys: a flood of one key delays another by one task', async () => {
    makePool();
    const order: string[] = [];
    const tasks = ['flood-1', 'flood-2', 'flood-3', 'other-1', 'flood-4', 'other-2'].map((name) =>
      pool.run({ name }, '', { key: name.split('-')[0]!, timeoutMs: 1000 }).then(() => order.push(name)),
    );
    workers[0]!.ready();
    for (let i = 0; i < 6; i++) {
      workers[0]!.answer();
      await flush();
    }
    await Promise.all(tasks);
    expect(workers[0]!.received.map((t) => t.header.name)).toEqual(['flood-1', 'other-1', 'flood-2', 'other-2', 'flood-3', 'flood-4']);
    expect(order).toEqual(['flood-1', 'other-1', 'flood-2', 'other-2', 'flood-3', 'flood-4']);
  });

  it('does not run a queued task whose caller stopped waiting (notAfter), and runs the next', async () => {
    makePool();
    const busy = outcome(pool.run({ name: 'busy' }, '', { key: 'a', timeoutMs: 1000 }));
    const late = outcome(pool.run({ name: 'late' }, '', { key: 'b', timeoutMs: 1000, notAfter: performance.now() + 50 }));
    const next = outcome(pool.run({ name: 'next' }, '', { key: 'c', timeoutMs: 1000 }));
    workers[0]!.ready();
    await vi.advanceTimersByTimeAsync(100);
    workers[0]!.answer();
    await flush();
    expect(busy.settled).toBe(true);
    expect(late.error!.reason).toBe('abandoned');
    expect(workers[0]!.received.map((t) => t.header.name)).toEqual(['busy', 'next']);
    workers[0]!.answer();
    await flush();
    expect(next.value).toBeDefined();
  });

  it('sends a `once` value (a script) to each worker the first time only', async () => {
    makePool({ size: 2 });
    const once = { key: 7, field: 'script', value: 'function F() end' };
    const run = () => pool.run({}, '', { key: 'a', timeoutMs: 1000, once });
    const first = [run(), run()];
    workers[0]!.ready();
    workers[1]!.ready();
    workers[0]!.answer();
    workers[1]!.answer();
    await Promise.all(first);
    const third = run();
    workers[0]!.answer();
    await third;
    expect(workers[0]!.received.map((t) => t.header.script)).toEqual(['function F() end', undefined]);
    expect(workers[1]!.received.map((t) => t.header.script)).toEqual(['function F() end']);
  });

  it('keeps the process alive only while a task is pending or a worker starting', async () => {
    makePool();
    expect(workers).toHaveLength(0);
    const task = pool.run({}, '', { key: 'a', timeoutMs: 1000 });
    expect(workers[0]!.referenced).toBe(true);
    workers[0]!.ready();
    workers[0]!.answer();
    await task;
    expect(workers[0]!.referenced).toBe(false);
  });

  it('fails queued and running tasks when closed, and refuses new ones', async () => {
    makePool();
    const running = outcome(pool.run({}, '', { key: 'a', timeoutMs: 1000 }));
    const queued = outcome(pool.run({}, '', { key: 'b', timeoutMs: 1000 }));
    workers[0]!.ready();
    await pool.close();
    await flush();
    expect(running.error!.reason).toBe('closed');
    expect(queued.error!.reason).toBe('closed');
    await expect(pool.run({}, '', { key: 'c', timeoutMs: 1000 })).rejects.toMatchObject({ reason: 'closed' });
  });
  describe('fairness under runaway customizations, and the circuit breaker', () => {
    const TIMEOUT = 1000;
    const GRACE = 250;
    /** The task named `name` as its worker received it, and that worker. */
    const sent = (name: string) => {
      for (const worker of workers) {
        const task = worker.received.find((t) => t.header.name === name);
        if (task) return { ...task, worker };
      }
      return undefined;
    };
    const run = (name: string, key: string, extra: { notAfter?: number } = {}) => outcome(pool.run({ name }, '', { key, timeoutMs: TIMEOUT, ...extra }));
    /** Queues each runaway key's calls (never answered: each is stopped at the limit plus the grace). */
    const flood = (keys: number, callsOf: (i: number) => number) =>
      Array.from({ length: keys }, (_, k) => Array.from({ length: callsOf(k) }, (_, c) => run(`runaway-${k}-${c}`, `runaway-${k}`))).flat();

    it('8 customizations running away on 2 workers: a customization that answered before starts within one time limit, every call of it before its deadline', async () => {
      makePool({ size: 2, readyAtOnce: true });
      const warm = run('victim-warm', 'victim');
      await flush();
      sent('victim-warm')!.worker.answer();
      await flush();
      expect(warm.value).toBeDefined();

      const runaway = flood(8, (k) => (k % 2 === 0 ? 2 : 1));
      await vi.advanceTimersByTimeAsync(50);
      const queuedAt = performance.now();
      // Five calls with Karmada's ?timeout=3s (2.7 s to answer).
      const victims = Array.from({ length: 5 }, (_, i) => run(`victim-${i}`, 'victim', { notAfter: queuedAt + 2700 }));
      await vi.advanceTimersByTimeAsync(TIMEOUT + GRACE - 50);
      // The two runaways started first were stopped; both freed workers went to the victim before the six runaway
      // customizations queued before it (round-robin by arrival had put it ninth: four time limits).
      expect(runaway.filter((r) => r.settled)).toHaveLength(2);
      for (let i = 0; i < 5; i++) {
        const task = sent(`victim-${i}`);
        expect(task, `victim-${i}`).toBeDefined();
        expect(task!.at - queuedAt).toBeLessThanOrEqual(TIMEOUT + GRACE);
        task!.worker.answer();
        await flush();
      }
      for (const victim of victims) expect(victim.value).toBeDefined();
    });

    it('once the runaways have timed out they hold all workers but one, so even a customization never heard from starts at once', async () => {
      makePool({ size: 2, readyAtOnce: true });
      const runaway = flood(8, () => 2);
      await flush();
      // Four rounds: each key's first call; keys not heard from go before keys that timed out.
      for (let round = 0; round < 4; round++) await vi.advanceTimersByTimeAsync(TIMEOUT + GRACE);
      expect(runaway.filter((r) => r.error?.reason === 'timeout')).toHaveLength(8);
      expect(pool.stats()).toMatchObject({ busy: 1, queued: 7 }); // the second calls, one at a time
      const newcomer = run('newcomer', 'newcomer');
      await flush();
      expect(sent('newcomer')?.at).toBe(performance.now());
      sent('newcomer')!.worker.answer();
      await flush();
      expect(newcomer.value).toBeDefined();
      expect(pool.stats()).toMatchObject({ busy: 1, queued: 7 });
    });

    it('a working customization with a backlog does not starve one not heard from: the other workers take keys in turn', async () => {
      makePool({ size: 2, readyAtOnce: true });
      const warm = run('busy-warm', 'busy');
      await flush();
      sent('busy-warm')!.worker.answer();
      await flush();
      const backlog = Array.from({ length: 6 }, (_, i) => run(`busy-${i}`, 'busy'));
      const newcomer = run('newcomer', 'newcomer');
      for (let i = 0; i < 3; i++) {
        for (const worker of workers) if (worker.received.some((t) => !t.header.answered)) worker.answer();
        await flush();
      }
      expect(warm.value).toBeDefined();
      expect(newcomer.value).toBeDefined();
      expect(backlog.filter((b) => b.settled).length).toBeLessThan(6);
    });

    it('opens the circuit after 3 timeouts in a row: queued and later calls are answered at once, naming the timeouts', async () => {
      makePool({ readyAtOnce: true });
      const calls = Array.from({ length: 5 }, (_, i) => run(`spin-${i}`, 'spin'));
      const other = run('other', 'other');
      await flush();
      for (let i = 0; i < 3; i++) {
        await vi.advanceTimersByTimeAsync(TIMEOUT);
        workers[0]!.answerTimeout(); // the worker stopped the script itself
        await flush();
        if (i === 0) {
          // `other` takes its turn between them (a key that timed out goes after one not heard from).
          workers[0]!.answer();
          await flush();
        }
      }
      expect(other.value).toBeDefined();
      expect(calls.slice(0, 3).every((c) => c.value?.header.ok === false)).toBe(true);
      const message =
        'not run (circuit breaker): its last 3 calls timed out, the first 2.0 s ago; its calls are answered at once for the next 10 s, then one is tried';
      for (const queued of calls.slice(3)) expect(queued.error).toMatchObject({ reason: 'open', message });
      await vi.advanceTimersByTimeAsync(4000);
      const later = run('spin-later', 'spin');
      await flush();
      expect(later.error).toMatchObject({
        reason: 'open',
        message: expect.stringContaining('the first 6.0 s ago; its calls are answered at once for the next 6 s'),
      });
      expect(workers[0]!.received.map((t) => t.header.name)).toEqual(['spin-0', 'other', 'spin-1', 'spin-2']);
      expect(pool.stats().circuits).toEqual([{ key: 'spin', state: 'open', refused: 3 }]);
    });

    it('keeps the circuit closed when an answer in time breaks the streak, or the timeouts are further apart than the window', async () => {
      makePool({ readyAtOnce: true });
      await flush();
      const answer = async (name: string, key: string, how: 'answer' | 'answerTimeout', after = 0) => {
        await vi.advanceTimersByTimeAsync(after);
        const call = run(name, key);
        await flush();
        workers[0]![how]();
        await flush();
        return call;
      };
      await answer('a-1', 'a', 'answerTimeout');
      await answer('a-2', 'a', 'answerTimeout');
      await answer('a-3', 'a', 'answer');
      await answer('a-4', 'a', 'answerTimeout');
      await answer('a-5', 'a', 'answerTimeout');
      expect((await answer('a-6', 'a', 'answer')).value).toBeDefined();
      await answer('b-1', 'b', 'answerTimeout');
      await answer('b-2', 'b', 'answerTimeout', BREAKER_WINDOW_MS / 2 + 1);
      await answer('b-3', 'b', 'answerTimeout', BREAKER_WINDOW_MS / 2 + 1);
      expect((await answer('b-4', 'b', 'answer')).value).toBeDefined();
      expect(pool.stats().circuits).toEqual([]);
    });

    it('does not count a call stopped for memory as a timeout', async () => {
      makePool({ readyAtOnce: true });
      await flush();
      for (let i = 0; i < 3; i++) {
        const call = run(`hog-${i}`, 'hog');
        await flush();
        workers.at(-1)!.crash('ERR_WORKER_OUT_OF_MEMORY');
        await flush();
        expect(call.error?.reason).toBe('memory');
      }
      const next = run('hog-next', 'hog');
      await flush();
      expect(sent('hog-next')).toBeDefined();
      expect(next.settled).toBe(false);
    });

    it('after the cool-down lets one call through: a timeout opens the circuit for twice as long, an answer in time closes it', async () => {
      makePool({ readyAtOnce: true });
      await flush();
      for (let i = 0; i < 3; i++) {
        run(`spin-${i}`, 'spin');
        await flush();
        workers[0]!.answerTimeout();
        await flush();
      }
      await vi.advanceTimersByTimeAsync(BREAKER_COOLDOWN_MS);
      const trial = run('trial-1', 'spin');
      const meanwhile = run('meanwhile', 'spin');
      await flush();
      expect(sent('trial-1')).toBeDefined();
      expect(meanwhile.error).toMatchObject({ reason: 'open', message: expect.stringContaining('one call is being tried before the others run') });
      expect(pool.stats().circuits).toEqual([{ key: 'spin', state: 'trial', refused: 1 }]);
      workers[0]!.answerTimeout();
      await flush();
      expect(trial.value?.header.ok).toBe(false);
      const refused = run('refused', 'spin');
      await flush();
      expect(refused.error?.message).toMatch(/its last 4 calls timed out, the first \d+\.\d s ago; its calls are answered at once for the next 20 s/);
      await vi.advanceTimersByTimeAsync(2 * BREAKER_COOLDOWN_MS);
      const second = run('trial-2', 'spin');
      await flush();
      workers[0]!.answer();
      await flush();
      expect(second.value).toBeDefined();
      const closed = [run('closed-1', 'spin'), run('closed-2', 'spin')];
      await flush();
      expect(sent('closed-1')).toBeDefined();
      workers[0]!.answer();
      await flush();
      workers[0]!.answer();
      await flush();
      expect(closed.every((c) => c.value)).toBe(true);
      expect(pool.stats().circuits).toEqual([{ key: 'spin', state: 'closed', refused: 2 }]);
    });

    it("names circuits by customization: a removed script's open circuit is forgotten a window past its cool-down, and refused totals never go down", async () => {
      makePool({ readyAtOnce: true });
      await flush();
      const call = (label: string, key: string) => outcome(pool.run({ name: label }, '', { key, name: 'cust', timeoutMs: TIMEOUT }));
      for (let i = 0; i < 3; i++) {
        call(`spin-${i}`, 'cust/script-1');
        await flush();
        workers[0]!.answerTimeout();
        await flush();
      }
      const refused = call('refused', 'cust/script-1');
      await flush();
      expect(refused.error?.reason).toBe('open');
      expect(pool.stats().circuits).toEqual([{ key: 'cust', state: 'open', refused: 1 }]);
      // The script is replaced (a reload): its key is never called again. Past the cool-down the next call
      // would be tried; BREAKER_WINDOW_MS later, with no call, the key is forgotten.
      await vi.advanceTimersByTimeAsync(BREAKER_COOLDOWN_MS);
      expect(pool.stats().circuits).toEqual([{ key: 'cust', state: 'trial', refused: 1 }]);
      await vi.advanceTimersByTimeAsync(BREAKER_WINDOW_MS + 1);
      expect(pool.stats().circuits).toEqual([{ key: 'cust', state: 'closed', refused: 1 }]);
      // Thousands of other keys later (the pool forgets idle ones past 4096), the total is still there.
      for (let i = 0; i < 4100; i++) call(`other-${i}`, `other-${i}`);
      await flush();
      for (let i = 0; i < 4100; i++) workers[0]!.answer();
      await flush();
      expect(pool.stats().circuits).toEqual([{ key: 'cust', state: 'closed', refused: 1 }]);
      expect(stops).toEqual([]);
    });

    it("a killed call on the priority lane holds it until its worker exits and a new one is ready: the bound is the time limit + grace + a worker's start-up", async () => {
      makePool({ size: 2 });
      const startUp = 40;
      const readied = new Set<FakeWorker>();
      const ready = () => {
        for (const worker of workers) {
          if (worker.terminated || readied.has(worker)) continue;
          readied.add(worker);
          worker.ready();
        }
      };
      void pool.start();
      ready();
      await flush();
      for (const key of ['victim', 'stuck']) {
        run(`${key}-warm`, key);
        await flush();
        sent(`${key}-warm`)!.worker.answer();
        await flush();
      }
      // The proven 'stuck' call takes the lane and never answers; a runaway holds the other worker (fair share).
      const stuck = run('stuck', 'stuck');
      run('runaway-0', 'runaway');
      await flush();
      const queuedAt = performance.now();
      const victim = run('victim', 'victim');
      await vi.advanceTimersByTimeAsync(TIMEOUT + GRACE);
      expect(stuck.error?.reason).toBe('timeout');
      expect(sent('victim')).toBeUndefined(); // both workers were killed; their replacements are starting
      await vi.advanceTimersByTimeAsync(startUp);
      ready();
      expect(sent('victim')!.at - queuedAt).toBe(TIMEOUT + GRACE + startUp);
      sent('victim')!.worker.answer();
      await flush();
      expect(victim.value).toBeDefined();
    });

    it('a trial call that never ran (its deadline passed in the queue) leaves the next call to be the trial', async () => {
      makePool({ readyAtOnce: true });
      await flush();
      for (let i = 0; i < 3; i++) {
        run(`spin-${i}`, 'spin');
        await flush();
        workers[0]!.answerTimeout();
        await flush();
      }
      await vi.advanceTimersByTimeAsync(BREAKER_COOLDOWN_MS);
      const busy = run('busy', 'other');
      const trial = run('trial', 'spin', { notAfter: performance.now() + 100 });
      await vi.advanceTimersByTimeAsync(200);
      workers[0]!.answer();
      await flush();
      expect(trial.error?.reason).toBe('abandoned');
      expect(busy.value).toBeDefined();
      run('next', 'spin');
      await flush();
      expect(sent('next')).toBeDefined();
    });
  });
});
