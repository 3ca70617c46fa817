// Whether the server's configuration fits the container's memory limit (decision 0017). At start the
// limit is read from the cgroup; what the configuration can hold at worst is the main thread's share
// plus each Lua worker's. `--lua-workers auto` is lowered to what fits; an explicit configuration that
// cannot fit is refused (a usage error naming the numbers and what to change), because the kernel's
// OOM killer would otherwise end the pod in the middle of calls, every call on it with it.
import { readFileSync } from 'node:fs';
import { DEFAULT_HEAP_MB as LOAD_WORKER_HEAP_MB, YOUNG_GENERATION_MB as LOAD_WORKER_YOUNG_MB } from '../customizations/load-off-thread.ts';
import { DEFAULT_RECORD_QUEUE_BYTES } from '../record/recorder.ts';

const MiB = 1024 * 1024;

/** The main thread at rest (V8, fastify, the registry, the modules) with room for TLS sessions and answers being written. */
export const MAIN_BASELINE_BYTES = 128 * MiB;
/** An open connection, TLS and HTTP state (decision 0009). */
export const CONNECTION_BYTES = 55 * 1024;
/** A worker thread at rest: its isolate, Lua states and compile cache. */
export const WORKER_BASELINE_BYTES = 16 * MiB;

/**
 * The heap V8 lets a worker thread reach, from the resource limits src/isolation/worker-pool.ts gives it:
 * old generation 64 MiB + twice the per-call limit, young generation 32 MiB. A call is stopped once it
 * holds 1.25 times the limit, but the garbage it leaves behind is collected only as V8 nears this cap, so
 * the cap, not the kill factor, bounds a worker (decision 0017 has the measurements).
 */
export function workerHeapCapBytes(luaMemoryLimit: number): number {
  const limitMb = Math.ceil(luaMemoryLimit / MiB);
  return (64 + 2 * limitMb + 32) * MiB;
}

export interface MemoryConfig {
  luaWorkers: number;
  luaMemoryLimit: number;
  inflightBodyLimit: number;
  maxConnections: number;
  /** `--record DIR`: its queue and encoding worker count too. */
  record?: string;
}

/**
 * The customization load worker (src/customizations/load-off-thread.ts), which a reload can start at any
 * moment: its heap cap and young generation, and a worker at rest.
 */
export const LOAD_WORKER_BYTES = (LOAD_WORKER_HEAP_MB + LOAD_WORKER_YOUNG_MB) * MiB + WORKER_BASELINE_BYTES;

/**
 * The main thread's share: at rest, request bodies held across calls, a full connection table, the
 * customization load worker, and with `--record` the recording queue and its encoding worker.
 */
export function mainThreadBytes(config: Omit<MemoryConfig, 'luaWorkers' | 'luaMemoryLimit'>): number {
  const recording = config.record ? DEFAULT_RECORD_QUEUE_BYTES + WORKER_BASELINE_BYTES : 0;
  return MAIN_BASELINE_BYTES + config.inflightBodyLimit + config.maxConnections * CONNECTION_BYTES + LOAD_WORKER_BYTES + recording;
}

export function workerBytes(luaMemoryLimit: number): number {
  return workerHeapCapBytes(luaMemoryLimit) + WORKER_BASELINE_BYTES;
}

/** The most the configuration can hold at once. */
export function memoryNeeded(config: MemoryConfig): number {
  return mainThreadBytes(config) + config.luaWorkers * workerBytes(config.luaMemoryLimit);
}

/** How many workers fit under `limitBytes` with this configuration (0 when not even one does). */
export function workersThatFit(config: Omit<MemoryConfig, 'luaWorkers'>, limitBytes: number): number {
  return Math.max(0, Math.floor((limitBytes - mainThreadBytes(config)) / workerBytes(config.luaMemoryLimit)));
}

/** The largest --lua-memory-limit (whole MiB) with which `workers` fit, or 0. */
function largestCallLimitThatFits(config: MemoryConfig, limitBytes: number): number {
  const perWorker = (limitBytes - mainThreadBytes(config)) / config.luaWorkers;
  return Math.max(0, Math.floor((perWorker - WORKER_BASELINE_BYTES - 96 * MiB) / MiB / 2));
}

/** cgroup v2, then v1. */
export const CGROUP_MEMORY_LIMIT_FILES = ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes'];
/** cgroup v1 writes "no limit" as the largest page-aligned counter (9223372036854771712); anything near it is none. */
const NO_LIMIT_ABOVE = 2 ** 60;

export interface ContainerLimit {
  bytes: number;
  file: string;
}

/** The container's memory limit, or undefined when there is none (`max`, a huge v1 value, no cgroup file). */
export function containerMemoryLimit(files = CGROUP_MEMORY_LIMIT_FILES, read = (file: string) => readFileSync(file, 'utf8')): ContainerLimit | undefined {
  for (const file of files) {
    let text: string;
    try {
      text = read(file).trim();
    } catch {
      continue; // not this cgroup version
    }
    if (text === 'max' || !/^\d+$/.test(text)) return undefined;
    const bytes = Number(text);
    return bytes >= NO_LIMIT_ABOVE ? undefined : { bytes, file };
  }
  return undefined;
}

export class MemoryFitError extends Error {}

export interface Fit {
  luaWorkers: number;
  /** Set when `--lua-workers auto` was lowered to fit: the count auto chose. */
  loweredFrom?: number;
  /** The values to serve with; lowered from their defaults when those did not fit (see `lowered`). */
  luaMemoryLimit: number;
  maxConnections: number;
  /** What was lowered to fit, in words, for the log ("--max-connections 4096 → 256"). */
  lowered: string[];
  neededBytes: number;
  limit?: ContainerLimit;
}

const mib = (bytes: number) => `${Math.ceil(bytes / MiB)} MiB`;

/** What the configuration needs, in words, for messages and the log. */
export function describeNeed(config: MemoryConfig): string {
  return (
    `${mib(memoryNeeded(config))}: main thread ${mib(MAIN_BASELINE_BYTES)} + --inflight-body-limit ${mib(config.inflightBodyLimit)}` +
    ` + --max-connections ${config.maxConnections} × 55 KiB (${mib(config.maxConnections * CONNECTION_BYTES)}) + the customization load worker ${mib(LOAD_WORKER_BYTES)}` +
    (config.record ? ` + --record ${mib(DEFAULT_RECORD_QUEUE_BYTES + WORKER_BASELINE_BYTES)}` : '') +
    ` + --lua-workers ${config.luaWorkers} × ${mib(workerBytes(config.luaMemoryLimit))}` +
    ` (a worker's heap cap of 2 × --lua-memory-limit ${mib(config.luaMemoryLimit)} + 96 MiB, and 16 MiB at rest)`
  );
}

/** The lowest values a default is lowered to: below them a default would surprise more than a refusal. */
export const LOWEST_DEFAULT_CONNECTIONS = 256;
export const LOWEST_DEFAULT_CALL_LIMIT = 32 * MiB;

export interface FitInput extends MemoryConfig {
  luaWorkersAuto: boolean;
  /** Settings the user did not give (flag or environment), which may be lowered to fit like `auto` workers. */
  defaulted?: { luaMemoryLimit?: boolean; maxConnections?: boolean };
}

/**
 * Fits the configuration to the container's memory limit. Only what the user did not choose is lowered,
 * in this order, each as far as needed: `auto` workers (to one), a default --max-connections (to 256), a
 * default --lua-memory-limit (to 32 MiB). A configuration that still does not fit is a MemoryFitError
 * naming the numbers and what to change: the user's own settings are never overridden.
 */
export function fitMemory(input: FitInput, limit: ContainerLimit | undefined): Fit {
  const config: MemoryConfig = {
    luaWorkers: input.luaWorkers,
    luaMemoryLimit: input.luaMemoryLimit,
    inflightBodyLimit: input.inflightBodyLimit,
    maxConnections: input.maxConnections,
    ...(input.record ? { record: input.record } : {}),
  };
  const fitted = (lowered: string[], loweredFrom?: number): Fit => ({
    luaWorkers: config.luaWorkers,
    ...(loweredFrom !== undefined ? { loweredFrom } : {}),
    luaMemoryLimit: config.luaMemoryLimit,
    maxConnections: config.maxConnections,
    lowered,
    neededBytes: memoryNeeded(config),
    limit,
  });
  if (!limit || memoryNeeded(config) <= limit.bytes) return fitted([]);
  const lowered: string[] = [];
  let loweredFrom: number | undefined;
  if (input.luaWorkersAuto) {
    const workers = Math.max(1, workersThatFit(config, limit.bytes));
    if (workers < config.luaWorkers) {
      lowered.push(`--lua-workers auto ${config.luaWorkers} → ${workers}`);
      loweredFrom = config.luaWorkers;
      config.luaWorkers = workers;
    }
  }
  if (memoryNeeded(config) > limit.bytes && input.defaulted?.maxConnections) {
    const room = limit.bytes - memoryNeeded({ ...config, maxConnections: 0 });
    const connections = Math.max(LOWEST_DEFAULT_CONNECTIONS, Math.min(config.maxConnections, Math.floor(room / CONNECTION_BYTES)));
    if (connections < config.maxConnections) {
      lowered.push(`--max-connections ${config.maxConnections} → ${connections}`);
      config.maxConnections = connections;
    }
  }
  if (memoryNeeded(config) > limit.bytes && input.defaulted?.luaMemoryLimit) {
    const callLimit = Math.max(LOWEST_DEFAULT_CALL_LIMIT, Math.min(config.luaMemoryLimit, largestCallLimitThatFits(config, limit.bytes) * MiB));
    if (callLimit < config.luaMemoryLimit) {
      lowered.push(`--lua-memory-limit ${mib(config.luaMemoryLimit)} → ${mib(callLimit)}`);
      config.luaMemoryLimit = callLimit;
    }
  }
  if (memoryNeeded(config) <= limit.bytes) return fitted(lowered, loweredFrom);
  const asGiven = { ...input };
  const neededBytes = memoryNeeded(asGiven);
  const fits = workersThatFit(asGiven, limit.bytes);
  const callLimit = largestCallLimitThatFits(asGiven, limit.bytes);
  const changes = [
    ...(fits >= 1 ? [`--lua-workers ${fits}`] : []),
    ...(callLimit >= 1 ? [`--lua-memory-limit ${callLimit}MiB`] : []),
    `a memory limit of at least ${mib(neededBytes)}`,
  ];
  throw new MemoryFitError(
    `the configuration can take ${describeNeed(asGiven)}; the container's memory limit is ${mib(limit.bytes)} (${limit.file}), ` +
      `so the kernel would kill the server under load. Give one of: ${changes.join(', or ')}` +
      (asGiven.maxConnections * CONNECTION_BYTES > 64 * MiB ? ` (or a lower --max-connections)` : ''),
  );
}
