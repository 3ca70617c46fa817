// A pool of worker threads for untrusted work (user Lua, user JSONPath). A task that does not answer
// within its time limit plus a grace, or whose worker grows past its memory limit, is stopped from
// outside: the worker is terminated and replaced, and the task fails with the limit it hit. Nothing a
// task does can block the main thread or exhaust the process: V8 resource limits end a worker whose heap
// overflows, and a watch on each busy worker's heap and external memory (ArrayBuffers, which resource
// limits do not count) ends one that grows past its limit inside a single native call.
//
// Queued tasks are shared out round-robin by key (a customization), so a flood of runaway calls of one
// customization delays the calls of another by at most one time limit: the next free worker takes the
// oldest task of the next key in turn.
import { availableParallelism } from 'node:os';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { KeepAwake, pollWindowMs } from './keep-awake.ts';

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

export interface WorkerPoolOptions {
  /** The worker's module (it answers `{ id, ... }` for every `{ id, ... }` it receives). */
  workerUrl: URL;
  workerData?: unknown;
  size: number;
  /** Growth of a busy worker's heap plus external memory, over its idle level, that ends the task. */
  memoryLimitBytes: number;
  /** How long past a task's time limit the worker gets to answer before it is terminated. */
  graceMs?: number;
  /** How often busy workers' memory is read. */
  memoryCheckMs?: number;
  /** Told about every worker that was stopped (metrics, logs). */
  onStop?: (reason: StopReason, key: string) => void;
}

export interface TaskOptions {
  /** Fair-share key: queued tasks are taken round-robin across keys. */
  key: string;
  timeoutMs: number;
  /** performance.now() after which nobody waits for the answer: a task still queued then is not run. */
  notAfter?: number;
  /** A value each worker needs once (a script): set as `message[field]` only for a worker not yet sent `key`. */
  once?: { key: number; field: string; value: unknown };
}

interface Task {
  message: { id: number } & Record<string, unknown>;
  options: TaskOptions;
  resolve: (reply: any) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Settles when the worker reports ready or ends before that. */
  started: Promise<void>;
  task?: Task;
  /** performance.now() when the task was handed to the worker. */
  assignedAt: number;
  killTimer?: NodeJS.Timeout;
  /** Heap plus external bytes when the worker last reported being idle. */
  idleBytes: number;
  /** The `once` keys this worker has been sent. */
  sent: Set<number>;
  stopping?: StopReason;
}

const RESTART_BACKOFF_MS = 1000;
/** The longest the main thread polls for a task's answer instead of sleeping (src/isolation/keep-awake.ts). */
const MAX_ANSWER_POLL_MS = 3;
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
  private readonly keepAwake = new KeepAwake();
  /** How long the last answered task took (ms): the main thread polls for answers only while tasks are short. */
  private lastTaskMs = 0;

  constructor(options: WorkerPoolOptions) {
    this.options = { graceMs: 250, memoryCheckMs: 50, ...options };
    const limitMb = Math.ceil(options.memoryLimitBytes / 1048576);
    // The hard stop for heap growth (a task's own check and the watch below stop it earlier).
    this.resourceLimits = { maxOldGenerationSizeMb: 64 + 2 * limitMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 };
  }

  get size(): number {
    return this.options.size;
  }

  /** Workers running a task, and tasks waiting for one. */
  stats(): { workers: number; busy: number; queued: number } {
    let busy = 0;
    for (const slot of this.slots) if (slot.task) busy++;
    let queued = 0;
    for (const queue of this.queues.values()) queued += queue.length;
    return { workers: this.slots.size, busy, queued };
  }

  /** Starts the workers now (otherwise the first task does); resolves once each has started or failed. */
  start(): Promise<void> {
    while (!this.closed && this.slots.size < this.options.size) this.spawn();
    return Promise.all([...this.slots].map((slot) => slot.started)).then(() => undefined);
  }

  /** Runs one task on a worker; the reply is the worker's answer message. */
  run<Reply>(message: Record<string, unknown>, options: TaskOptions): Promise<Reply> {
    if (this.closed) return Promise.reject(new WorkerTaskError('closed', 'the worker pool is closed'));
    void this.start();
    return new Promise<Reply>((resolve, reject) => {
      const task: Task = { message: { ...message, id: this.nextId++ }, options, resolve, reject };
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
    for (const queue of this.queues.values()) {
      for (const task of queue) task.reject(new WorkerTaskError('closed', 'the worker pool is closed'));
    }
    this.queues.clear();
    this.turn.length = 0;
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
    const worker = new Worker(this.options.workerUrl, { workerData: this.options.workerData, resourceLimits: this.resourceLimits });
    let settle!: () => void;
    const started = new Promise<void>((resolve) => (settle = resolve));
    worker.once('exit', () => settle());
    const slot: Slot = { worker, ready: false, started, assignedAt: 0, idleBytes: 0, sent: new Set() };
    this.slots.add(slot);
    worker.on('message', (reply: { id?: number; ready?: boolean; idleBytes?: number }) => {
      if (reply.ready) {
        slot.ready = true;
        settle();
        slot.idleBytes = reply.idleBytes ?? 0;
        this.failedStarts = 0;
        this.dispatch();
        this.updateRefs();
        return;
      }
      const task = slot.task;
      if (!task || reply.id !== task.message.id) return;
      clearTimeout(slot.killTimer);
      slot.task = undefined;
      this.lastTaskMs = performance.now() - slot.assignedAt;
      if (typeof reply.idleBytes === 'number') slot.idleBytes = reply.idleBytes;
      task.resolve(reply);
      this.dispatch();
      if (!this.busy()) this.keepAwake.rest();
      this.updateRefs();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') slot.stopping ??= 'memory';
      else slot.stopping ??= 'crashed';
    });
    worker.on('exit', () => this.onExit(slot));
    this.updateRefs();
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
      setTimeout(() => this.dispatch(), RESTART_BACKOFF_MS).unref();
      return;
    }
    if (this.queued() > 0) void this.start();
  }

  private busy(): boolean {
    for (const slot of this.slots) if (slot.task) return true;
    return false;
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

  /** Hands queued tasks to idle, ready workers, keys in turn. */
  private dispatch(): void {
    if (this.closed) return;
    if (this.slots.size < this.options.size && this.queued() > 0) void this.start();
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
    slot.assignedAt = performance.now();
    this.keepAwake.stayAwake(pollWindowMs(this.lastTaskMs, MAX_ANSWER_POLL_MS));
    const once = task.options.once;
    if (once && !slot.sent.has(once.key)) {
      // The worker keeps what it was sent until told to forget it all (onceReset), so both sides agree.
      const reset = slot.sent.size >= MAX_SENT_ONCE;
      if (reset) slot.sent.clear();
      slot.sent.add(once.key);
      slot.worker.postMessage({ ...task.message, [once.field]: once.value, ...(reset ? { onceReset: true } : {}) });
    } else {
      slot.worker.postMessage(task.message);
    }
  }

  private stop(slot: Slot, reason: StopReason): void {
    if (slot.stopping) return;
    slot.stopping = reason;
    void slot.worker.terminate();
  }

  /** Reads busy workers' memory while any is busy. */
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
