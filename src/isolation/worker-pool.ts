// A pool of worker threads for untrusted work (user Lua, user JSONPath). A task that does not answer
// within its time limit plus a grace, or whose worker grows past its memory limit, is stopped from
// outside: the worker is terminated and replaced, and the task fails with the limit it hit. Nothing a
// task does can block the main thread: V8 resource limits end a worker whose heap overflows, and a watch
// on each busy worker's heap and external memory (ArrayBuffers, which resource limits do not count) ends
// one that grows past its limit inside a single native call.
//
// Queued tasks are shared out round-robin by key (a customization), so a flood of runaway calls of one
// customization delays the calls of another by at most one time limit: the next free worker takes the
// oldest task of the next key in turn.
//
// A task is one message to its worker and one message back (decision 0012): text framed by protocol.ts
// `frame`, a JSON header line with the task's id, then a payload. Both threads sleep in their event loops
// while they wait. The worker module gets `workerData.data` and answers every task it is given with one
// message carrying the task's id; its first message is `{ ready: true, idleBytes }`.
import { availableParallelism } from 'node:os';
import { Worker, type ResourceLimits, type WorkerOptions } from 'node:worker_threads';
import { frame, unframe } from './protocol.ts';

export type StopReason = 'timeout' | 'memory' | 'crashed' | 'abandoned' | 'closed';

/** A task ended without an answer from its worker. */
export class WorkerTaskError extends Error {
  readonly reason: StopReason;
  constructor(reason: StopReason, message: string) {
    super(message);
    this.name = 'WorkerTaskError';
    this.reason = reason;
  }
}

/** What the pool uses of a worker thread (tests pass a fake through `createWorker`). */
export interface PoolWorker {
  postMessage(text: string): void;
  terminate(): Promise<unknown>;
  getHeapStatistics(): Promise<{ used_heap_size: number; external_memory: number }>;
  ref(): void;
  unref(): void;
  on(event: 'message', listener: (text: string) => void): unknown;
  on(event: 'error', listener: (error: Error & { code?: string }) => void): unknown;
  on(event: 'exit', listener: () => void): unknown;
}

export interface WorkerPoolOptions {
  /** The worker's module (see above). */
  workerUrl: URL;
  /** Passed to every worker as `workerData.data`. */
  workerData?: unknown;
  size: number;
  /** Growth of a busy worker's heap plus external memory, over its idle level, that ends the task. */
  memoryLimitBytes: number;
  /** How long past a task's time limit the worker gets to answer before it is terminated. */
  graceMs?: number;
  /** How often busy workers' memory is read. */
  memoryCheckMs?: number;
  /** How long to wait before starting workers again after three that died before becoming ready. */
  restartBackoffMs?: number;
  /** Told about every worker that was stopped (metrics, logs). */
  onStop?: (reason: StopReason, key: string) => void;
  /** Makes a worker (default: a node:worker_threads Worker); for tests. */
  createWorker?: (url: URL, options: WorkerOptions) => PoolWorker;
}

export interface TaskOptions {
  /** Fair-share key: queued tasks are taken round-robin across keys. */
  key: string;
  timeoutMs: number;
  /** performance.now() after which nobody waits for the answer: a task still queued then is not run. */
  notAfter?: number;
  /** A value each worker needs once (a script): set as `header[field]` only for a worker not yet sent `key`. */
  once?: { key: number; field: string; value: unknown };
}

/** A task's answer: the worker's header (with the task's id) and payload. */
export interface Answer {
  header: Record<string, any>;
  payload: string;
}

interface Task {
  header: { id: number } & Record<string, unknown>;
  payload: string;
  options: TaskOptions;
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: PoolWorker;
  ready: boolean;
  /** Settles when the worker reports ready or ends before that. */
  started: Promise<void>;
  task?: Task;
  killTimer?: NodeJS.Timeout;
  /** Heap plus external bytes when the worker last reported being idle. */
  idleBytes: number;
  /** The `once` keys this worker has been sent. */
  sent: Set<number>;
  stopping?: StopReason;
}

/** `once` values a worker keeps (scripts: a configuration has far fewer). */
const MAX_SENT_ONCE = 1024;

/** The machine's parallelism, at least 2 (one runaway call never stops all others) and at most 8. */
export function defaultWorkerCount(): number {
  return Math.min(8, Math.max(2, availableParallelism()));
}

export class WorkerPool {
  private readonly options: Required<Omit<WorkerPoolOptions, 'onStop' | 'workerData'>> & Pick<WorkerPoolOptions, 'onStop' | 'workerData'>;
  private readonly slots = new Set<Slot>();
  /** Queued tasks per key, and the keys with queued tasks in turn order. */
  private readonly queues = new Map<string, Task[]>();
  private readonly turn: string[] = [];
  private nextId = 1;
  private memoryTimer: NodeJS.Timeout | undefined;
  /** Whether the workers are ref'd (keep the process alive). */
  private referenced = false;
  private closed = false;
  /** Consecutive workers that died before becoming ready: a broken worker file must not spin. */
  private failedStarts = 0;
  private readonly resourceLimits: ResourceLimits;

  constructor(options: WorkerPoolOptions) {
    this.options = {
      graceMs: 250,
      memoryCheckMs: 50,
      restartBackoffMs: 1000,
      createWorker: (url, workerOptions) => new Worker(url, workerOptions),
      ...options,
    };
    const limitMb = Math.ceil(options.memoryLimitBytes / 1048576);
    // The hard stop for heap growth (a task's own check and the watch below stop it earlier). The stack
    // holds the result encoder's recursion to Go's 10,000 levels even in unoptimised frames (~0.45 KB each).
    this.resourceLimits = { maxOldGenerationSizeMb: 64 + 2 * limitMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 8 };
  }

  get size(): number {
    return this.options.size;
  }

  /** Workers running a task, and tasks waiting for one. */
  stats(): { workers: number; busy: number; queued: number } {
    let busy = 0;
    for (const slot of this.slots) if (slot.task) busy++;
    return { workers: this.slots.size, busy, queued: this.queued() };
  }

  /** Starts the workers now (otherwise the first task does); resolves once each has started or failed. */
  start(): Promise<void> {
    while (!this.closed && this.slots.size < this.options.size) this.spawn();
    return Promise.all([...this.slots].map((slot) => slot.started)).then(() => undefined);
  }

  /** Runs one task (a header and a payload) on a worker; resolves with the worker's answer. */
  run(header: Record<string, unknown>, payload: string, options: TaskOptions): Promise<Answer> {
    if (this.closed) return Promise.reject(new WorkerTaskError('closed', 'the worker pool is closed'));
    return new Promise<Answer>((resolve, reject) => {
      const task: Task = { header: { ...header, id: this.nextId++ }, payload, options, resolve, reject };
      let queue = this.queues.get(options.key);
      if (!queue) {
        queue = [];
        this.queues.set(options.key, queue);
        this.turn.push(options.key);
      }
      queue.push(task);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.memoryTimer);
    this.memoryTimer = undefined;
    this.failQueued(new WorkerTaskError('closed', 'the worker pool is closed'));
    const slots = [...this.slots];
    this.slots.clear();
    await Promise.all(
      slots.map((slot) => {
        clearTimeout(slot.killTimer);
        slot.task?.reject(new WorkerTaskError('closed', 'the worker pool is closed'));
        return slot.worker.terminate();
      }),
    );
  }

  private spawn(): void {
    const worker = this.options.createWorker(this.options.workerUrl, { workerData: { data: this.options.workerData }, resourceLimits: this.resourceLimits });
    let settle!: () => void;
    const started = new Promise<void>((resolve) => (settle = resolve));
    const slot: Slot = { worker, ready: false, started, idleBytes: 0, sent: new Set() };
    this.slots.add(slot);
    worker.on('message', (text: string) => {
      const answer = unframe(text);
      if (!answer.header.ready) {
        this.answered(slot, answer);
        return;
      }
      slot.ready = true;
      settle();
      slot.idleBytes = answer.header.idleBytes ?? 0;
      this.failedStarts = 0;
      this.dispatch();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      slot.stopping ??= error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'crashed';
    });
    worker.on('exit', () => {
      settle();
      this.onExit(slot);
    });
    this.updateRefs();
  }

  private answered(slot: Slot, answer: Answer): void {
    const task = slot.task;
    if (!task || answer.header.id !== task.header.id) return;
    clearTimeout(slot.killTimer);
    slot.task = undefined;
    if (typeof answer.header.idleBytes === 'number') slot.idleBytes = answer.header.idleBytes;
    task.resolve(answer);
    this.dispatch();
  }

  /** Workers keep the process alive only while starting or while tasks are pending (the CLI exits when its work is done). */
  private updateRefs(): void {
    let pending = this.queued() > 0;
    for (const slot of this.slots) pending ||= slot.task !== undefined || !slot.ready;
    if (pending === this.referenced) return;
    this.referenced = pending;
    for (const slot of this.slots) {
      if (pending) slot.worker.ref();
      else slot.worker.unref();
    }
  }

  private onExit(slot: Slot): void {
    clearTimeout(slot.killTimer);
    const known = this.slots.delete(slot);
    const task = slot.task;
    slot.task = undefined;
    if (!slot.ready) this.failedStarts++;
    if (task) {
      const reason = slot.stopping ?? 'crashed';
      task.reject(new WorkerTaskError(reason, stopMessage(reason, task.options.timeoutMs, this.options.memoryLimitBytes)));
      this.options.onStop?.(reason, task.options.key);
    }
    if (!known || this.closed) return;
    if (this.failedStarts >= 3) {
      // The worker cannot start (a broken installation): fail what waits rather than retry in a loop.
      this.failQueued(new WorkerTaskError('crashed', 'the worker for untrusted work could not start'));
      setTimeout(() => {
        this.failedStarts = 0;
        this.dispatch();
      }, this.options.restartBackoffMs).unref();
      return;
    }
    // A stopped worker is replaced at once, so the next call finds it started.
    void this.start();
    this.dispatch();
  }

  private queued(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.length;
    return n;
  }

  private failQueued(error: WorkerTaskError): void {
    for (const queue of this.queues.values()) for (const task of queue) task.reject(error);
    this.queues.clear();
    this.turn.length = 0;
  }

  /** Hands queued tasks to idle, ready workers, keys in turn; starts missing workers while tasks wait. */
  private dispatch(): void {
    if (this.closed) return;
    if (this.queued() > 0 && this.failedStarts < 3) while (this.slots.size < this.options.size) this.spawn();
    for (const slot of this.slots) {
      if (!slot.ready || slot.task || slot.stopping) continue;
      const task = this.nextTask();
      if (!task) break;
      this.assign(slot, task);
    }
    this.updateRefs();
  }

  private nextTask(): Task | undefined {
    const now = performance.now();
    while (this.turn.length > 0) {
      const key = this.turn.shift()!;
      const queue = this.queues.get(key)!;
      const task = queue.shift()!;
      if (queue.length > 0) this.turn.push(key);
      else this.queues.delete(key);
      if (task.options.notAfter !== undefined && now >= task.options.notAfter) {
        task.reject(new WorkerTaskError('abandoned', "not run: the request's deadline passed while the call waited for a worker"));
        continue;
      }
      return task;
    }
    return undefined;
  }

  private assign(slot: Slot, task: Task): void {
    slot.task = task;
    this.watchMemory();
    slot.killTimer = setTimeout(() => this.stop(slot, 'timeout'), task.options.timeoutMs + this.options.graceMs);
    let header = task.header;
    const once = task.options.once;
    if (once && !slot.sent.has(once.key)) {
      // The worker keeps what it was sent until told to forget it all (onceReset), so both sides agree.
      const reset = slot.sent.size >= MAX_SENT_ONCE;
      if (reset) slot.sent.clear();
      slot.sent.add(once.key);
      header = { ...header, [once.field]: once.value, ...(reset ? { onceReset: true } : {}) };
    }
    slot.worker.postMessage(frame(header, task.payload));
  }

  private stop(slot: Slot, reason: StopReason): void {
    if (slot.stopping) return;
    slot.stopping = reason;
    void slot.worker.terminate();
  }

  /** Reads busy workers' memory every memoryCheckMs; the timer stops at the first check that finds none busy. */
  private watchMemory(): void {
    if (this.memoryTimer) return;
    this.memoryTimer = setInterval(() => this.checkMemory(), this.options.memoryCheckMs);
    this.memoryTimer.unref();
  }

  private checkMemory(): void {
    let busy = false;
    for (const slot of this.slots) {
      if (!slot.task || slot.stopping) continue;
      busy = true;
      slot.worker.getHeapStatistics().then(
        (heap) => {
          const grown = heap.used_heap_size + heap.external_memory - slot.idleBytes;
          if (slot.task && grown > this.options.memoryLimitBytes * 1.25) this.stop(slot, 'memory');
        },
        () => undefined, // the worker ended meanwhile
      );
    }
    if (!busy) {
      clearInterval(this.memoryTimer);
      this.memoryTimer = undefined;
    }
  }
}

function stopMessage(reason: StopReason, timeoutMs: number, memoryLimitBytes: number): string {
  switch (reason) {
    case 'timeout':
      return `stopped after ${timeoutMs} ms: time limit exceeded`;
    case 'memory':
      return `stopped: memory limit of ${Math.round(memoryLimitBytes / 1048576)} MiB exceeded`;
    default:
      return 'the worker running the call crashed';
  }
}
