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
//
// A task and its answer are text (mailbox.ts `frame`): a JSON header line with the task's id, and a
// payload. Each goes through a shared-memory mailbox when the other thread is polling it, else through
// the worker's message port. The worker module gets `{ data, toWorker, toMain }` as its workerData (the
// two mailboxes' buffers) and answers every task it is given with one message carrying the task's id.
import { availableParallelism } from 'node:os';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { frame, Mailbox, pollWindowMs, unframe } from './mailbox.ts';

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
  /** Told about every worker that was stopped (metrics, logs). */
  onStop?: (reason: StopReason, key: string) => void;
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
  /** Where a waiting worker takes its next task, and where the main thread polls for an answer. */
  toWorker: Mailbox;
  toMain: Mailbox;
  /** performance.now() until which the main thread polls `toMain` for this slot's answer; 0: it does not. */
  pollUntil: number;
  /** performance.now() when the main thread took this worker's last answer; -Infinity before the first. */
  answeredAt: number;
}

const RESTART_BACKOFF_MS = 1000;
/** The longest the main thread polls for a task's answer instead of sleeping (decision 0007). */
const MAX_ANSWER_POLL_MS = 3;
/** The longest a worker waits at its mailbox for its next task after answering (decision 0007). */
const MAX_NEXT_TASK_POLL_MS = 3;
/** Larger tasks and answers (a workload with thousands of clusters' statuses) take the message port. */
const MAILBOX_BYTES = 256 * 1024;
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
  /** How long the last answered task took (ms; Infinity before the first): the main thread polls for answers only while tasks are short. */
  private lastTaskMs = Infinity;
  /** Whether a chain of pollAnswers immediates is running. */
  private polling = false;

  constructor(options: WorkerPoolOptions) {
    this.options = { graceMs: 250, memoryCheckMs: 50, ...options };
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
    let queued = 0;
    for (const queue of this.queues.values()) queued += queue.length;
    return { workers: this.slots.size, busy, queued };
  }

  /** Starts the workers now (otherwise the first task does); resolves once each has started or failed. */
  start(): Promise<void> {
    while (!this.closed && this.slots.size < this.options.size) this.spawn();
    return Promise.all([...this.slots].map((slot) => slot.started)).then(() => undefined);
  }

  /** Runs one task (a header and a payload) on a worker; resolves with the worker's answer. */
  run(header: Record<string, unknown>, payload: string, options: TaskOptions): Promise<Answer> {
    if (this.closed) return Promise.reject(new WorkerTaskError('closed', 'the worker pool is closed'));
    void this.start();
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
    const toWorker = Mailbox.allocate(MAILBOX_BYTES);
    const toMain = Mailbox.allocate(MAILBOX_BYTES);
    const worker = new Worker(this.options.workerUrl, {
      workerData: { data: this.options.workerData, toWorker, toMain },
      resourceLimits: this.resourceLimits,
    });
    let settle!: () => void;
    const started = new Promise<void>((resolve) => (settle = resolve));
    worker.once('exit', () => settle());
    const slot: Slot = {
      worker,
      ready: false,
      started,
      assignedAt: 0,
      idleBytes: 0,
      sent: new Set(),
      toWorker: new Mailbox(toWorker),
      toMain: new Mailbox(toMain),
      pollUntil: 0,
      answeredAt: -Infinity,
    };
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
      this.updateRefs();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') slot.stopping ??= 'memory';
      else slot.stopping ??= 'crashed';
    });
    worker.on('exit', () => this.onExit(slot));
    this.updateRefs();
  }

  private answered(slot: Slot, answer: Answer): void {
    if (slot.pollUntil !== 0) {
      // An answer that came by the port: the worker sends one per task, so the mailbox is empty.
      slot.toMain.close();
      slot.pollUntil = 0;
    }
    const task = slot.task;
    if (!task || answer.header.id !== task.header.id) return;
    clearTimeout(slot.killTimer);
    slot.task = undefined;
    slot.answeredAt = performance.now();
    this.lastTaskMs = slot.answeredAt - slot.assignedAt;
    if (typeof answer.header.idleBytes === 'number') slot.idleBytes = answer.header.idleBytes;
    task.resolve(answer);
    this.dispatch();
    this.updateRefs();
  }

  /** One turn of the main thread's polling: answers in the mailboxes of busy workers, and windows that ended. */
  private readonly pollAnswers = (): void => {
    const now = performance.now();
    for (const slot of this.slots) {
      if (slot.pollUntil === 0) continue;
      const text = now < slot.pollUntil ? slot.toMain.take() : slot.toMain.close();
      if (text === undefined && now < slot.pollUntil) continue;
      slot.pollUntil = 0;
      if (text !== undefined) this.answered(slot, unframe(text));
    }
    // Answers may have started new tasks (and windows) on any slot.
    this.polling = false;
    for (const slot of this.slots) if (slot.pollUntil !== 0) this.polling = true;
    if (this.polling) setImmediate(this.pollAnswers);
  };

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
    // A short task's answer is polled for (and may come through the mailbox), so the main thread's event
    // loop does not sleep and need waking; the mailbox opens before the task is sent.
    const window = pollWindowMs(this.lastTaskMs, MAX_ANSWER_POLL_MS);
    if (window > 0) {
      slot.toMain.open(); // closed and empty here: its last answer was taken, and answers are never redirected
      slot.pollUntil = slot.assignedAt + window;
      if (!this.polling) {
        this.polling = true;
        setImmediate(this.pollAnswers);
      }
    }
    // After this task the worker waits at its mailbox while tasks come quickly one at a time, judged by the gap
    // since its last answer as seen here (the worker's own clock would count its wake-up after a task sent by
    // the port). Not while other tasks run or wait: under concurrent calls a spinning worker takes CPU from them.
    const { busy, queued } = this.stats(); // this task is counted as busy already
    const waitMs = busy === 1 && queued === 0 ? pollWindowMs(slot.assignedAt - slot.answeredAt, MAX_NEXT_TASK_POLL_MS) : 0;
    let header = waitMs > 0 ? { ...task.header, waitMs } : task.header;
    const once = task.options.once;
    if (once && !slot.sent.has(once.key)) {
      // The worker keeps what it was sent until told to forget it all (onceReset), so both sides agree.
      const reset = slot.sent.size >= MAX_SENT_ONCE;
      if (reset) slot.sent.clear();
      slot.sent.add(once.key);
      header = { ...header, [once.field]: once.value, ...(reset ? { onceReset: true } : {}) };
    }
    const text = frame(header, task.payload);
    if (slot.toWorker.deliver(text)) return;
    slot.toWorker.redirect(); // a worker waiting at its mailbox goes back to its event loop for this message
    slot.worker.postMessage(text);
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
