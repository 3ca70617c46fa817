// Memory sizing (src/server/memory-fit.ts, decision 0017): the container's limit from the cgroup, what a
// configuration can hold, `auto` workers lowered to fit, an explicit configuration that cannot fit refused.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HEAP_MB as LOAD_WORKER_HEAP_MB } from '../../src/customizations/load-off-thread.ts';
import { WorkerPool, type PoolWorker } from '../../src/isolation/worker-pool.ts';
import {
  containerMemoryLimit,
  fitMemory,
  LOAD_WORKER_BYTES,
  MAIN_BASELINE_BYTES,
  memoryNeeded,
  MemoryFitError,
  WORKER_BASELINE_BYTES,
  workerHeapCapBytes,
  workersThatFit,
} from '../../src/server/memory-fit.ts';

const MiB = 1024 * 1024;
const V2 = '/cgroup/memory.max';
const V1 = '/cgroup/memory/memory.limit_in_bytes';

/** A reader over fake cgroup files; a file not given does not exist. */
const files = (contents: Record<string, string>) => (file: string) => {
  if (!(file in contents)) throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
  return contents[file]!;
};

describe('the container memory limit', () => {
  it('is read from cgroup v2, else v1', () => {
    expect(containerMemoryLimit([V2, V1], files({ [V2]: '805306368\n' }))).toEqual({ bytes: 768 * MiB, file: V2 });
    expect(containerMemoryLimit([V2, V1], files({ [V1]: '536870912\n' }))).toEqual({ bytes: 512 * MiB, file: V1 });
  });

  it('is none for "max", cgroup v1\'s unlimited value, or no cgroup file', () => {
    expect(containerMemoryLimit([V2, V1], files({ [V2]: 'max\n' }))).toBeUndefined();
    expect(containerMemoryLimit([V2, V1], files({ [V1]: '9223372036854771712\n' }))).toBeUndefined();
    expect(containerMemoryLimit([V2, V1], files({}))).toBeUndefined();
  });
});

describe('what a configuration needs', () => {
  const defaults = { luaWorkers: 2, luaMemoryLimit: 128 * MiB, inflightBodyLimit: 32 * MiB, maxConnections: 4096 };

  it('is the main thread (at rest, bodies in flight, a full connection table, the load worker, recording) and each worker at its heap cap', () => {
    expect(memoryNeeded({ ...defaults, luaWorkers: 0 })).toBe(MAIN_BASELINE_BYTES + 32 * MiB + 4096 * 55 * 1024 + LOAD_WORKER_BYTES);
    expect(LOAD_WORKER_BYTES).toBe((LOAD_WORKER_HEAP_MB + 16) * MiB + WORKER_BASELINE_BYTES);
    expect(memoryNeeded({ ...defaults, record: '/records' }) - memoryNeeded(defaults)).toBe(64 * MiB + WORKER_BASELINE_BYTES);
    expect(memoryNeeded(defaults) - memoryNeeded({ ...defaults, luaWorkers: 1 })).toBe(workerHeapCapBytes(128 * MiB) + WORKER_BASELINE_BYTES);
  });

  it("uses the heap cap the worker pool gives its workers (src/isolation/worker-pool.ts's resourceLimits)", async () => {
    for (const limit of [64 * MiB, 128 * MiB, 300 * MiB]) {
      let limits: { maxOldGenerationSizeMb?: number; maxYoungGenerationSizeMb?: number } | undefined;
      const pool = new WorkerPool({
        workerUrl: new URL('file:///nothing.js'),
        size: 1,
        memoryLimitBytes: limit,
        createWorker: (_url, options) => {
          limits = options.resourceLimits;
          return Object.assign(new EventEmitter(), {
            postMessage: () => undefined,
            terminate: async () => 0,
            getHeapStatistics: async () => ({ used_heap_size: 0, external_memory: 0 }),
            ref: () => undefined,
            unref: () => undefined,
          }) as unknown as PoolWorker;
        },
      });
      void pool.start();
      await pool.close();
      expect(workerHeapCapBytes(limit)).toBe((limits!.maxOldGenerationSizeMb! + limits!.maxYoungGenerationSizeMb!) * MiB);
    }
  });

  it('fits as it is when there is no limit or it is under the limit', () => {
    expect(fitMemory({ ...defaults, luaWorkers: 8, luaWorkersAuto: true }, undefined)).toMatchObject({ luaWorkers: 8 });
    const limit = { bytes: memoryNeeded(defaults), file: V2 };
    expect(fitMemory({ ...defaults, luaWorkersAuto: false }, limit)).toEqual({
      luaWorkers: 2,
      luaMemoryLimit: defaults.luaMemoryLimit,
      maxConnections: defaults.maxConnections,
      lowered: [],
      neededBytes: limit.bytes,
      limit,
    });
  });

  it('lowers --lua-workers auto to what fits', () => {
    const limit = { bytes: memoryNeeded({ ...defaults, luaWorkers: 3 }) + MiB, file: V2 };
    const fit = fitMemory({ ...defaults, luaWorkers: 8, luaWorkersAuto: true }, limit);
    expect(fit).toMatchObject({ luaWorkers: 3, loweredFrom: 8 });
    expect(fit.neededBytes).toBeLessThanOrEqual(limit.bytes);
    expect(workersThatFit(defaults, limit.bytes)).toBe(3);
  });

  it('refuses an explicit count that cannot fit, naming the numbers and what to change', () => {
    const limit = { bytes: 640 * MiB, file: V2 };
    const config = { ...defaults, luaWorkers: 2, luaMemoryLimit: 64 * MiB, maxConnections: 1024, luaWorkersAuto: false };
    expect(() => fitMemory(config, limit)).toThrow(MemoryFitError);
    let message = '';
    try {
      fitMemory(config, limit);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`can take ${Math.ceil(memoryNeeded(config) / MiB)} MiB`);
    expect(message).toContain("the container's memory limit is 640 MiB (/cgroup/memory.max)");
    expect(message).toContain('--lua-workers 1');
    expect(message).toMatch(/--lua-memory-limit \d+MiB/);
    expect(message).toContain(`a memory limit of at least ${Math.ceil(memoryNeeded(config) / MiB)} MiB`);
    // What it proposes fits.
    const proposed = Number(/--lua-memory-limit (\d+)MiB/.exec(message)![1]) * MiB;
    expect(memoryNeeded({ ...config, luaMemoryLimit: proposed })).toBeLessThanOrEqual(limit.bytes);
    expect(memoryNeeded({ ...config, luaMemoryLimit: proposed + MiB })).toBeGreaterThan(limit.bytes);
  });

  it('refuses auto too when not even one worker fits and the other settings were chosen by the user', () => {
    expect(() => fitMemory({ ...defaults, luaWorkers: 4, luaWorkersAuto: true }, { bytes: 512 * MiB, file: V1 })).toThrow(/memory limit is 512 MiB/);
  });

  it('starts a 512 MiB pod with every default: auto workers, then the default connections, then the default call limit lowered', () => {
    const serverDefaults = { luaWorkers: 4, luaWorkersAuto: true, luaMemoryLimit: 128 * MiB, inflightBodyLimit: 32 * MiB, maxConnections: 4096 };
    const limit = { bytes: 512 * MiB, file: V2 };
    const fit = fitMemory({ ...serverDefaults, defaulted: { luaMemoryLimit: true, maxConnections: true } }, limit);
    expect(fit).toMatchObject({ luaWorkers: 1, loweredFrom: 4, maxConnections: 256 });
    expect(fit.luaMemoryLimit).toBeLessThan(128 * MiB);
    expect(fit.luaMemoryLimit).toBeGreaterThanOrEqual(32 * MiB);
    expect(fit.neededBytes).toBeLessThanOrEqual(limit.bytes);
    expect(fit.lowered).toEqual(['--lua-workers auto 4 → 1', '--max-connections 4096 → 256', expect.stringMatching(/^--lua-memory-limit 128 MiB → \d+ MiB$/)]);
  });

  it('lowers a default only as far as needed, and never below its floor', () => {
    const config = { ...defaults, luaWorkers: 1, luaWorkersAuto: false, maxConnections: 4096, defaulted: { luaMemoryLimit: true, maxConnections: true } };
    const room = memoryNeeded({ ...config, maxConnections: 2000 });
    const fit = fitMemory(config, { bytes: room, file: V2 });
    expect(fit).toMatchObject({ maxConnections: 2000, luaMemoryLimit: defaults.luaMemoryLimit });
    // Far too little room: the floors hold and the configuration is refused.
    expect(() => fitMemory(config, { bytes: 200 * MiB, file: V2 })).toThrow(MemoryFitError);
  });

  it("never lowers the user's own --max-connections or --lua-memory-limit", () => {
    const config = { ...defaults, luaWorkers: 1, luaWorkersAuto: false, maxConnections: 4096, defaulted: { luaMemoryLimit: false, maxConnections: false } };
    expect(() => fitMemory(config, { bytes: memoryNeeded(config) - MiB, file: V2 })).toThrow(MemoryFitError);
  });
});
