// A pool of worker threads for untrusted work (user Lua, user JSONPath). A task that does not answer
// within its time limit plus a grace, or whose worker grows past its memory limit, is stopped from
// outside: the worker is terminated and replaced, and the task fails with the limit it hit. Nothing a
// task does can block the main thread: V8 resource limits end a worker whose heap overflows, and a watch
// on each busy worker's heap and external memory (ArrayBuffers, which resource limits do not count) ends
// one that grows past its limit inside a single native call.
//
// Queued tasks are shared out by key (a customization's script), decision 0016. One worker, the priority
// lane, takes a key whose last call answered in time before a key not heard from yet, and never a key
// whose calls time out; the others take keys in turn, those whose calls time out last. So however many
// keys run away, a working key's call starts when the priority lane's current call ends: within one time
// limit when that call answers (the worker stops a script at its limit itself), else within the time
// limit + graceMs + the kill + a new worker's start-up (a call stuck where the worker cannot stop it); and
// keys whose calls time out hold at most all workers but one. A key whose calls timed out
// BREAKER_TIMEOUTS times in a row (within BREAKER_WINDOW_MS) has its calls answered at once (circuit
// open) until a cool-down passes; then one call is let through, and its answer in time closes it.
// A key's standing and circuit judge one script: callers key by customization *and* script, so a reload
// that changes the script starts afresh, and a removed script's state is never consulted again: an open
// key not called for BREAKER_WINDOW_MS past its cool-down is forgotten (a removed script reads open for at
// most its cool-down + that). Stats and metrics name the customization (`name`), so their label set is
// bounded by the customizations' names, not by reloads.
//
// A task is one message to its worker and one message back (decision 0012): text framed by protocol.ts
// `frame`, a JSON header line with the task's id, then a payload. Both threads sleep in their event loops
// while they wait. The worker module gets `workerData.data` and answers every task it is given with one
// message carrying the task's id; its first message is `{ ready: true, idleBytes }`.
import { availableParallelism } from 'node:os';
import { Worker, type ResourceLimits, type WorkerOptions } from 'node:worker_threads';
import { frame, unframe } from './protocol.ts';

export type StopReason = 'timeout' | 'memory' | 'crashed' | 'abandoned' | 'closed';

/** A task ended without an answer from its worker: stopped, or never run ('open': its key's circuit is open). */
export type TaskFailure = StopReason | 'open';

/** A task ended without an answer from its worker. */
export class WorkerTaskError extends Error {
  readonly reason: TaskFailure;
  constructor(reason: TaskFailure, message: string) {
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
  /** Told about every worker that was stopped (metrics, logs), with the task's name. */
  onStop?: (reason: StopReason, name: string) => void;
  /** Makes a worker (default: a node:worker_threads Worker); for tests. */
  createWorker?: (url: URL, options: WorkerOptions) => PoolWorker;
  /** Whether an answer says its call was stopped at its time limit (default: a protocol.ts WorkerReply with error.timeout). */
  timedOut?: (answer: Answer) => boolean;
}

/** Timeouts in a row, each within BREAKER_WINDOW_MS of the first, that open a key's circuit. */
export const BREAKER_TIMEOUTS = 3;
export const BREAKER_WINDOW_MS = 60_000;
/** How long an open circuit answers at once before one call is let through; doubled after each trial that times out. */
export const BREAKER_COOLDOWN_MS = 10_000;
export const BREAKER_MAX_COOLDOWN_MS = 300_000;

/** How an answer given at once by an open circuit begins (after the customization and function). */
export const CIRCUIT_OPEN_MESSAGE = 'not run (circuit breaker)';

/** A name (customization) with a key whose circuit is open or trying a call, or whose calls were answered at once (metrics). */
export interface CircuitStats {
  /** The tasks' name (TaskOptions.name): the customization, whichever of its scripts' keys is meant. */
  key: string;
  /** The worst of its keys: calls answered at once (open), one call being tried and the others answered at once (trial), or neither. */
  state: 'closed' | 'open' | 'trial';
  /** Calls answered at once since the pool started (never decreases: kept apart from the keys, which are forgotten). */
  refused: number;
}

export interface TaskOptions {
  /** Fair-share and breaker key: queued tasks are taken round-robin across keys; standing and circuit are per key. */
  key: string;
  /** What stats, metrics and onStop call the key (its customization); default: the key. */
  name?: string;
  /** false: the key has no circuit breaker (its calls are never answered at once); default true. */
  breaker?: boolean;
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
  /** Which worker took it: the priority lane, or one of the others (see dispatch). */
  lane?: 'priority' | 'fair';
  /** performance.now() when it was sent to its worker. */
  startedAt?: number;
  /** The one call let through a circuit whose cool-down passed. */
  trial?: boolean;
  /** How it ended is recorded (at the kill for a timeout, before the worker's exit). */
  recorded?: boolean;
}

/** Order of queued keys: lower goes first. */
const PROVEN = 0;
const UNHEARD = 1;
const SUSPECT = 2;

/** What the pool remembers of a key: how its calls ended, and its circuit. */
interface KeyState {
  /** The last finished call answered in time. */
  proven: boolean;
  /** End times of the timeouts since the last answer in time (the streak that opens the circuit). */
  timeouts: number[];
  /** While set, the circuit is open until this time (performance.now()), then lets one call through. */
  openUntil?: number;
  cooldownMs: number;
  /** The trial call is queued or running. */
  trying: boolean;
  /** Timeouts in a row since the last answer in time, and when the first of them ended (the answers name them). */
  streak: number;
  streakSince: number;
  /** The name of the key's tasks (stats). */
  name: string;
  /** performance.now() of its last call (run), answered at once or not. */
  lastCall: number;
}

/** Keys remembered (customizations of the loaded set; idle ones are forgotten past this). */
const MAX_KEYS = 4096;

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
  private readonly keys = new Map<string, KeyState>();
  /**
   * Calls answered at once, by name, for the pool's life: a Prometheus counter must never go down, so the
   * totals are not part of the forgettable key state. Bounded by the names of customizations ever loaded
   * whose circuit opened (configuration, not requests).
   */
  private readonly refused = new Map<string, number>();

  constructor(options: WorkerPoolOptions) {
    this.options = {
      graceMs: 250,
      memoryCheckMs: 50,
      restartBackoffMs: 1000,
      createWorker: (url, workerOptions) => new Worker(url, workerOptions),
      timedOut: (answer) => answer.header.ok === false && answer.header.error?.timeout === true,
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

  /** Workers running a task, tasks waiting for one, and the keys whose circuit is not closed or refused calls. */
  stats(): { workers: number; busy: number; queued: number; circuits: CircuitStats[] } {
    let busy = 0;
    for (const slot of this.slots) if (slot.task) busy++;
    const now = performance.now();
    const states = new Map<string, CircuitStats['state']>();
    for (const [key, state] of this.keys) {
      if (state.openUntil === undefined) continue;
      if (this.stale(key, state, now)) {
        this.keys.delete(key);
        continue;
      }
      const s = now < state.openUntil ? 'open' : 'trial';
      if (states.get(state.name) !== 'open') states.set(state.name, s);
    }
    const circuits: CircuitStats[] = [];
    for (const name of new Set([...states.keys(), ...this.refused.keys()])) {
      circuits.push({ key: name, state: states.get(name) ?? 'closed', refused: this.refused.get(name) ?? 0 });
    }
    return { workers: this.slots.size, busy, queued: this.queued(), circuits };
  }

  /** Starts the workers now (otherwise the first task does); resolves once each has started or failed. */
  start(): Promise<void> {
    while (!this.closed && this.slots.size < this.options.size) this.spawn();
    return Promise.all([...this.slots].map((slot) => slot.started)).then(() => undefined);
  }

  /** Runs one task (a header and a payload) on a worker; resolves with the worker's answer. */
  run(header: Record<string, unknown>, payload: string, options: TaskOptions): Promise<Answer> {
    if (this.closed) return Promise.reject(new WorkerTaskError('closed', 'the worker pool is closed'));
    const state = this.keyState(options.key, options.name ?? options.key);
    state.lastCall = performance.now();
    let trial = false;
    if (state.openUntil !== undefined) {
      // Open: answered at once until the cool-down passes; then one call is let through at a time.
      if (performance.now() < state.openUntil || state.trying) {
        this.countRefused(state);
        return Promise.reject(new WorkerTaskError('open', this.openMessage(state)));
      }
      state.trying = trial = true;
    }
    return new Promise<Answer>((resolve, reject) => {
      const task: Task = { header: { ...header, id: this.nextId++ }, payload, options, resolve, reject, trial };
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
    this.finished(task, this.options.timedOut(answer) ? 'timeout' : 'in-time');
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
      this.finished(task, reason === 'timeout' ? 'timeout' : 'other');
      task.reject(new WorkerTaskError(reason, stopMessage(reason, task.options.timeoutMs, this.options.memoryLimitBytes)));
      this.options.onStop?.(reason, task.options.name ?? task.options.key);
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
    for (const queue of this.queues.values()) for (const task of queue) this.drop(task, error);
    this.queues.clear();
    this.turn.length = 0;
  }

  /** Fails a task that will not run; a trial that does not run leaves the next call to be the trial. */
  private drop(task: Task, error: WorkerTaskError): void {
    if (task.trial) this.keyState(task.options.key, task.options.name ?? task.options.key).trying = false;
    task.reject(error);
  }

  private countRefused(state: KeyState): void {
    this.refused.set(state.name, (this.refused.get(state.name) ?? 0) + 1);
  }

  private keyState(key: string, name: string): KeyState {
    let state = this.keys.get(key);
    if (state && !this.stale(key, state, performance.now())) return state;
    if (this.keys.size >= MAX_KEYS) this.forgetIdleKeys();
    state = { proven: false, timeouts: [], cooldownMs: BREAKER_COOLDOWN_MS, trying: false, streak: 0, streakSince: 0, name, lastCall: 0 };
    this.keys.set(key, state);
    return state;
  }

  /**
   * An open key not called for BREAKER_WINDOW_MS past its cool-down, nothing of it queued or running: its
   * script was removed or replaced (Karmada calls a served customization all the time), so its state is
   * dropped rather than read as open forever; a script merely called that rarely starts afresh.
   */
  private stale(key: string, state: KeyState, now: number): boolean {
    if (state.openUntil === undefined || state.trying || this.queues.has(key)) return false;
    if (now - Math.max(state.openUntil, state.lastCall) <= BREAKER_WINDOW_MS) return false;
    for (const slot of this.slots) if (slot.task?.options.key === key) return false;
    return true;
  }

  /**
   * Keys with nothing queued or running whose circuit is closed or past its cool-down (removed scripts'
   * keys among them): what they had earned, or a cool-down's doubling, is lost; refused totals are kept.
   */
  private forgetIdleKeys(): void {
    const now = performance.now();
    const running = new Set<string>();
    for (const slot of this.slots) if (slot.task) running.add(slot.task.options.key);
    for (const [key, state] of this.keys) {
      const open = state.trying || (state.openUntil !== undefined && now < state.openUntil);
      if (!open && !this.queues.has(key) && !running.has(key)) this.keys.delete(key);
    }
  }

  /** Records how a call of a key ended: the key's standing, and its circuit. */
  private finished(task: Task, outcome: 'in-time' | 'timeout' | 'other'): void {
    if (task.recorded) return;
    task.recorded = true;
    const state = this.keyState(task.options.key, task.options.name ?? task.options.key);
    if (task.trial) state.trying = false;
    if (outcome === 'other') return; // stopped for memory or crashed: no word on time
    if (state.openUntil !== undefined && !task.trial) return; // while open, only the trial decides
    if (outcome === 'in-time') {
      state.proven = true;
      state.timeouts.length = 0;
      state.streak = 0;
      if (task.trial) {
        state.openUntil = undefined;
        state.cooldownMs = BREAKER_COOLDOWN_MS;
      }
      return;
    }
    const now = performance.now();
    state.proven = false;
    if (state.streak++ === 0) state.streakSince = now;
    state.timeouts.push(now);
    while (now - state.timeouts[0]! > BREAKER_WINDOW_MS) state.timeouts.shift();
    if (task.options.breaker === false) return; // its timeouts rank it in the queue, never refuse its calls
    if (task.trial) {
      state.cooldownMs = Math.min(BREAKER_MAX_COOLDOWN_MS, state.cooldownMs * 2);
      this.open(task.options.key, state, now);
    } else if (state.openUntil === undefined && state.timeouts.length >= BREAKER_TIMEOUTS) {
      this.open(task.options.key, state, now);
    }
  }

  /** Opens a key's circuit: its queued calls are answered now, and the next ones until the cool-down passes. */
  private open(key: string, state: KeyState, now: number): void {
    state.openUntil = now + state.cooldownMs;
    const queue = this.queues.get(key);
    if (!queue) return;
    this.queues.delete(key);
    this.turn.splice(this.turn.indexOf(key), 1);
    for (const task of queue) {
      this.countRefused(state);
      this.drop(task, new WorkerTaskError('open', this.openMessage(state)));
    }
  }

  private openMessage(state: KeyState): string {
    const now = performance.now();
    const then = state.trying
      ? 'one call is being tried before the others run'
      : `its calls are answered at once for the next ${Math.ceil((state.openUntil! - now) / 1000)} s, then one is tried`;
    return `${CIRCUIT_OPEN_MESSAGE}: its last ${state.streak} calls timed out, the first ${((now - state.streakSince) / 1000).toFixed(1)} s ago; ${then}`;
  }

  /**
   * PROVEN, UNHEARD or SUSPECT: a key with a call running past its time limit, a streak of timeouts or a
   * circuit not closed is SUSPECT. A streak older than the window is forgotten.
   */
  private standing(key: string, now: number): number {
    for (const slot of this.slots) {
      const task = slot.task;
      if (task?.options.key === key && now - task.startedAt! > task.options.timeoutMs) return SUSPECT;
    }
    const state = this.keys.get(key);
    if (!state) return UNHEARD;
    if (state.openUntil !== undefined) return SUSPECT;
    if (state.timeouts.length > 0) {
      if (now - state.timeouts[state.timeouts.length - 1]! <= BREAKER_WINDOW_MS) return SUSPECT;
      state.timeouts.length = 0;
    }
    return state.proven ? PROVEN : UNHEARD;
  }

  /**
   * Hands queued tasks to idle, ready workers; starts missing workers while tasks wait. One worker at a time
   * is the priority lane: it takes a key whose last call answered in time before one not heard from, and
   * never a key whose calls time out, so however many of those wait, a working key's call starts as soon as
   * that worker's current call ends: within one time limit if it answers, else the time limit + graceMs +
   * the kill + a new worker's start-up (the stopped worker keeps its task, and so the lane, until it exits;
   * the others are no quicker: an idle one already takes that call as a fair-share task). The others take
   * keys in turn, keys whose calls time out last (a single worker does both).
   */
  private dispatch(): void {
    if (this.closed) return;
    if (this.queued() > 0 && this.failedStarts < 3) while (this.slots.size < this.options.size) this.spawn();
    for (const slot of this.slots) {
      if (!slot.ready || slot.task || slot.stopping) continue;
      let priority = false;
      let fair = 0;
      for (const other of this.slots) {
        if (other.task?.lane === 'priority') priority = true;
        else if (other.task) fair++;
      }
      const single = this.options.size === 1;
      const task =
        (!priority && !single ? this.nextTask('priority') : undefined) ?? (single || fair < this.options.size - 1 ? this.nextTask('fair') : undefined);
      if (!task) break;
      this.assign(slot, task);
    }
    this.updateRefs();
  }

  /**
   * The oldest task of the first key in turn among the best standing the lane takes: PROVEN, then UNHEARD
   * for the priority lane; PROVEN or UNHEARD alike, then SUSPECT, for the others. Tasks whose caller's
   * deadline passed are failed on the way.
   */
  private nextTask(lane: 'priority' | 'fair'): Task | undefined {
    const now = performance.now();
    for (;;) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i < this.turn.length; i++) {
        const standing = this.standing(this.turn[i]!, now);
        if (lane === 'priority' && standing === SUSPECT) continue;
        const rank = lane === 'priority' ? standing : standing === SUSPECT ? 1 : 0;
        if (rank < bestRank) [best, bestRank] = [i, rank];
        if (rank === 0) break;
      }
      if (best < 0) return undefined;
      const key = this.turn.splice(best, 1)[0]!;
      const queue = this.queues.get(key)!;
      const task = queue.shift()!;
      if (queue.length > 0) this.turn.push(key);
      else this.queues.delete(key);
      if (task.options.notAfter !== undefined && now >= task.options.notAfter) {
        this.drop(task, new WorkerTaskError('abandoned', "not run: the request's deadline passed while the call waited for a worker"));
        continue;
      }
      task.lane = lane;
      return task;
    }
  }

  private assign(slot: Slot, task: Task): void {
    slot.task = task;
    task.startedAt = performance.now();
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
    // Known now: its key's next call, picked while this worker is still ending, is taken as a timing-out key's.
    if (reason === 'timeout' && slot.task) this.finished(slot.task, 'timeout');
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
