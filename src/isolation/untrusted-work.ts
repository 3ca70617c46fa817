// The main thread's side of untrusted work: Lua customization calls (as the CustomizationRuntime the
// Lua interpreters use) and state-preservation JSONPath, each run on the worker pool with a time and a
// memory limit. Failures come back as the errors the in-process code would throw, so the messages Karmada
// sees name the customization, the function and the limit that was hit.
import type { StatePreservationRule } from '../interpreter/types.ts';
import type { CustomizationRuntime } from '../customizations/interpreter.ts';
import { compileCheck } from '../lua/compile-check.ts';
import { LuaScriptError } from '../lua/errors.ts';
import type { LuaArgs, LuaCallOptions, LuaOperation, LuaResult } from '../lua/operations.ts';
import type { PreservationResult } from '../preservation/evaluate.ts';
import { applyKnownPatch, type PatchOperation } from '../protocol/patch.ts';
import type { UntrustedWorkerData, WorkerReply } from './protocol.ts';
import { defaultWorkerCount, WorkerPool, WorkerTaskError, type Answer, type StopReason, type WorkerPoolOptions } from './worker-pool.ts';

/**
 * The fair-share key of state-preservation JSONPath: a space keeps it apart from every customization name
 * (a Kubernetes name has none). It has no circuit breaker: its rules come with each /preserve request, so
 * one client's slow rules must not get every client's answered at once; its time limit bounds each call.
 */
export const PRESERVE_KEY = 'state preservation';

export interface UntrustedWorkOptions {
  /** Worker threads (default: the machine's parallelism, between 2 and 8). */
  workers?: number;
  /** Time limit of one Lua call (Karmada's: 1 s). */
  luaTimeoutMs?: number;
  /** How much one call may grow its worker's memory. */
  memoryLimitBytes?: number;
  /** Time limit of one state-preservation evaluation. */
  preserveTimeoutMs?: number;
  /** Told about every call stopped from outside (metrics). */
  onStop?: (reason: StopReason, key: string) => void;
  /** Told whether each Lua call found its script compiled (metrics). */
  onCompileCache?: (hit: boolean) => void;
  /** Makes the worker threads (tests pass fakes). */
  createWorker?: WorkerPoolOptions['createWorker'];
}

export const DEFAULT_LUA_TIMEOUT_MS = 1000;
export const DEFAULT_MEMORY_LIMIT_BYTES = 128 * 1024 * 1024;
const MAX_SCRIPT_IDS = 4096;

// The worker runs from its TypeScript source where this module does (tests, `node src/cli.ts`), else the build.
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './untrusted-worker.ts' : './untrusted-worker.js', import.meta.url);

export class UntrustedWork implements CustomizationRuntime {
  readonly luaTimeoutMs: number;
  private readonly preserveTimeoutMs: number;
  private readonly pool: WorkerPool;
  private readonly onCompileCache?: (hit: boolean) => void;
  private readonly scriptIds = new Map<string, number>();
  private nextScriptId = 1;

  constructor(options: UntrustedWorkOptions = {}) {
    this.luaTimeoutMs = options.luaTimeoutMs ?? DEFAULT_LUA_TIMEOUT_MS;
    this.preserveTimeoutMs = options.preserveTimeoutMs ?? 1000;
    this.onCompileCache = options.onCompileCache;
    const memoryLimitBytes = options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES;
    const workerData: UntrustedWorkerData = { memoryLimitBytes };
    this.pool = new WorkerPool({
      workerUrl: WORKER_URL,
      workerData,
      size: options.workers ?? defaultWorkerCount(),
      memoryLimitBytes,
      onStop: options.onStop,
      ...(options.createWorker ? { createWorker: options.createWorker } : {}),
    });
  }

  /** Starts the workers ahead of the first call; resolves once they have started. */
  start(): Promise<void> {
    return this.pool.start();
  }

  stats(): ReturnType<WorkerPool['stats']> {
    return this.pool.stats();
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  compileCheck(script: string): void {
    compileCheck(script);
  }

  /** Evaluates state-preservation rules (user JSONPath) against a reflected status. */
  async evaluatePreservation(rules: StatePreservationRule[], status: unknown): Promise<PreservationResult> {
    let answer: Answer;
    try {
      answer = await this.pool.run({ type: 'preserve', rules }, JSON.stringify(status ?? null), {
        key: PRESERVE_KEY,
        breaker: false,
        timeoutMs: this.preserveTimeoutMs,
      });
    } catch (error) {
      if (error instanceof WorkerTaskError) throw new Error(`evaluating the state preservation rules ${error.message}`, { cause: error });
      throw error;
    }
    const reply = answer.header as WorkerReply;
    if (!reply.ok) throw new Error(reply.error.message);
    return JSON.parse(answer.payload) as PreservationResult;
  }

  /** Runs one Lua call on a worker: the arguments travel as the request's JSON text when there is one. */
  async call<O extends LuaOperation>(operation: O, script: string, args: LuaArgs<O>, o?: LuaCallOptions): Promise<LuaResult<O>> {
    const timeoutMs = o?.timeoutMs ?? this.luaTimeoutMs;
    let scriptId = this.scriptIds.get(script);
    if (scriptId === undefined) {
      // Scripts come from configuration; a server reloading its customizations for months starts over
      // (new ids: what workers keep is bounded by the pool).
      if (this.scriptIds.size >= MAX_SCRIPT_IDS) this.scriptIds.clear();
      scriptId = this.nextScriptId++;
      this.scriptIds.set(script, scriptId);
    }
    let answer: Answer;
    try {
      const fromRequest = o?.requestText !== undefined;
      const payload = o?.requestText ?? JSON.stringify(args);
      const name = o?.key ?? operation;
      answer = await this.pool.run({ type: 'lua', operation, scriptId, timeoutMs, fromRequest }, payload, {
        // A key's standing and circuit judge one script of one customization: a reload that fixes the script
        // starts afresh (a new id), while stats and metrics still name the customization.
        key: `${name}\u0000${scriptId}`,
        name,
        timeoutMs,
        notAfter: o?.notAfter,
        once: { key: scriptId, field: 'script', value: script },
      });
    } catch (error) {
      if (error instanceof WorkerTaskError && error.reason !== 'closed') {
        throw new LuaScriptError(error.message, {
          timeout: error.reason === 'timeout' || error.reason === 'abandoned',
          abandoned: error.reason === 'abandoned',
        });
      }
      throw error;
    }
    const reply = answer.header as WorkerReply;
    this.onCompileCache?.(!reply.compiled);
    if (o?.onPrint) for (const line of reply.prints) o.onPrint(line);
    if (!reply.ok) {
      const e = reply.error;
      throw new LuaScriptError(e.luaMessage ?? e.message, { functionName: e.functionName, line: e.line, timeout: e.timeout });
    }
    if (reply.patch) {
      // The worker diffed the object it was given (the request's, read from its text) against the
      // script's result: the answer is that patch applied to our copy of the object, copying only what it
      // changes, and the exchange answers that very patch (patch.ts diff) instead of diffing again.
      return applyKnownPatch(args[0] as object, JSON.parse(answer.payload) as PatchOperation[], answer.payload) as LuaResult<O>;
    }
    return JSON.parse(answer.payload) as LuaResult<O>;
  }
}
