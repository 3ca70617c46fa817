// A load the load worker stopped (its start or per-file timeout, its memory) failed for the node's sake,
// not the file's: the watch loads the same files again at its next poll, where an unchanged file that was
// read, parsed and refused for its bytes is not read again.
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startLoadWorker, type StartLoadWorker } from '../../src/customizations/load-off-thread.ts';
import { loadCustomizations, type LoadResult } from '../../src/customizations/loader.ts';
import { watchCustomizations, type CustomizationWatch } from '../../src/customizations/watch.ts';
import { FakeRuntime } from '../lua/fake-runtime.ts';
import { ric } from './ric.ts';

const STOPPED = 'stopped: the customization load worker failed: it could not start; not read';

/** The real load worker, except that while `stopping` a worker fails as it starts (as when the node is out of memory). */
let stopping = false;
/** While set, every worker fails as it starts. */
let stopAlways = false;
/** Load workers started. */
let starts = 0;
const startWorker: StartLoadWorker = (heapMb) => {
  starts++;
  if (!stopping && !stopAlways) return startLoadWorker(heapMb);
  stopping = false;
  const fake = Object.assign(new EventEmitter(), { postMessage: () => {}, terminate: () => Promise.resolve(1) });
  setImmediate(() => fake.emit('error', new Error('it could not start')));
  return fake;
};

let dir: string;
let handle: CustomizationWatch | undefined;
const runtime = new FakeRuntime();
const options = { runtime, offThread: { startWorker }, pollMs: 0 };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kiw-retry-'));
  writeFileSync(join(dir, 'w.yaml'), ric('Widget', 'function InterpretHealth(o) return true end'));
  stopping = false;
  stopAlways = false;
});
afterEach(() => {
  vi.useRealTimers();
  handle?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a stopped load is retried', () => {
  it('a start-up load whose worker failed as it started is loaded again though no file changed', async () => {
    stopping = true;
    const initial = await loadCustomizations([dir], options);
    expect(initial.errors).toEqual([{ file: join(dir, 'w.yaml'), message: STOPPED }]);
    const reloads: LoadResult[] = [];
    handle = watchCustomizations([dir], (r) => reloads.push(r), { ...options, initial });

    const retried = await handle.reload();
    expect(retried?.errors).toEqual([]);
    expect(retried?.interpreters.map((i) => i.name)).toEqual(['lua:Widget']);
    expect(reloads).toEqual([retried]);
    expect(handle.current()).toBe(retried);

    // Loaded now: an unchanged folder is not loaded again.
    expect(await handle.reload()).toBeUndefined();
  });

  it('a reload stopped after a change is loaded again at the next poll, and a load refused for its bytes is not', async () => {
    const initial = await loadCustomizations([dir], options);
    const reloads: LoadResult[] = [];
    handle = watchCustomizations([dir], (r) => reloads.push(r), { ...options, initial });

    writeFileSync(join(dir, 'w.yaml'), ric('Widget', 'function InterpretHealth(o) return false end'));
    stopping = true;
    const stopped = await handle.reload();
    expect(stopped?.errors).toEqual([{ file: join(dir, 'w.yaml'), message: STOPPED }]);
    expect(handle.current()).toBe(initial);

    const retried = await handle.reload();
    expect(retried?.errors).toEqual([]);
    expect(handle.current()).toBe(retried);
    expect(reloads).toEqual([stopped, retried]);

    // A file refused for what it holds is read once: the same bytes would be refused again.
    writeFileSync(join(dir, 'w.yaml'), ric('Widget', 'function InterpretHealth(o) return end end'));
    expect((await handle.reload())?.errors).toEqual([{ file: join(dir, 'w.yaml'), message: expect.stringContaining('script line 1') }]);
    expect(await handle.reload()).toBeUndefined();
  });

  it('a load that keeps being stopped is retried at once, then after 1, 2, 4 … poll intervals', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const initial = await loadCustomizations([dir], options);
    handle = watchCustomizations([dir], () => undefined, { ...options, initial });
    writeFileSync(join(dir, 'w.yaml'), ric('Widget', 'function InterpretHealth(o) return false end'));
    stopAlways = true;
    starts = 0;
    expect((await handle.reload())?.errors[0]?.message).toBe(STOPPED); // the change, stopped
    await handle.reload(); // retried at once, stopped again (same outcome: nothing new to apply)
    expect(starts).toBe(2);
    await handle.reload(); // backing off: nothing read
    vi.advanceTimersByTime(4999);
    await handle.reload();
    expect(starts).toBe(2);
    vi.advanceTimersByTime(1);
    stopAlways = false;
    expect((await handle.reload())?.errors).toEqual([]); // after one poll interval (5 s): loaded
  });
});
