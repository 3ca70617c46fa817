// A load the load worker stopped (its start or per-file timeout, its memory) failed for the node's sake,
// not the file's: the watch loads the same files again at its next poll, where an unchanged file that was
// read, parsed and refused for its bytes is not read again.
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startLoadWorker, type StartLoadWorker } from '../../src/customizations/load-off-thread.ts';
import { loadCustomizations, type LoadResult } from '../../src/customizations/loader.ts';
import { watchCustomizations, type CustomizationWatch } from '../../src/customizations/watch.ts';
import { FakeRuntime } from '../lua/fake-runtime.ts';

const STOPPED = 'stopped: the customization load worker failed: it could not start; not read';

/** The real load worker, except that while `stopping` a worker fails as it starts (as when the node is out of memory). */
let stopping = false;
const startWorker: StartLoadWorker = (heapMb) => {
  if (!stopping) return startLoadWorker(heapMb);
  stopping = false;
  const fake = Object.assign(new EventEmitter(), { postMessage: () => {}, terminate: () => Promise.resolve(1) });
  setImmediate(() => fake.emit('error', new Error('it could not start')));
  return fake;
};

const ric = (name: string, script: string) =>
  stringify({
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterCustomization',
    metadata: { name },
    spec: { target: { apiVersion: 'example.io/v1', kind: name }, customizations: { healthInterpretation: { luaScript: script } } },
  });

let dir: string;
let handle: CustomizationWatch | undefined;
const runtime = new FakeRuntime();
const options = { runtime, offThread: { startWorker }, pollMs: 0 };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kiw-retry-'));
  writeFileSync(join(dir, 'w.yaml'), ric('Widget', 'function InterpretHealth(o) return true end'));
  stopping = false;
});
afterEach(() => {
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
});
