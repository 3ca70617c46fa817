// The worker pool on fake workers and fake time: which task runs where, and what stops a worker, decided
// by the pool alone (the real workers are in untrusted-work.test.ts). Deterministic and in milliseconds.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { frame, unframe } from '../../src/isolation/protocol.ts';
import { WorkerPool, WorkerTaskError, type PoolWorker, type StopReason, type WorkerPoolOptions } from '../../src/isolation/worker-pool.ts';

class FakeWorker extends EventEmitter implements PoolWorker {
  readonly received: Array<{ header: Record<string, any>; payload: string }> = [];
  heapBytes = 1000;
  terminated = false;
  referenced = true;

  postMessage(text: string): void {
    this.received.push(unframe(text));
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

  function makePool(options: Partial<WorkerPoolOptions> = {}): WorkerPool {
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
        return worker;
      },
      ...options,
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
    expect(workers[0]!.received).toEqual([{ header: { type: 'x', id: 1 }, payload: '[1,2]' }]);
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
});
