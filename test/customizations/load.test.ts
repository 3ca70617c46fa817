// Loading on the load worker: a file that takes more memory than its worker may have is stopped and
// named, and the files after it still load; a poll decides by dev, inode, size and mtime, reading nothing.
import { mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCustomizations } from '../../src/customizations/loader.ts';
import { watchCustomizations, type CustomizationWatch } from '../../src/customizations/watch.ts';
import { FakeRuntime } from '../lua/fake-runtime.ts';
import { ric } from './ric.ts';

let dir: string;
let handle: CustomizationWatch | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kiw-load-'));
});
afterEach(() => {
  handle?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('loading on the load worker', () => {
  it('parses and compile-checks with the real compiler, off the main thread', async () => {
    writeFileSync(join(dir, 'good.yaml'), ric('Good', 'function InterpretHealth(o) return true end'));
    writeFileSync(join(dir, 'bad.yaml'), ric('Bad', 'function InterpretHealth(o) return end end'));
    const runtime = new FakeRuntime();
    const result = await loadCustomizations([dir], { runtime, offThread: true });
    expect(result.interpreters.map((i) => i.name)).toEqual(['lua:Good']);
    expect(result.errors).toEqual([
      { file: join(dir, 'bad.yaml'), message: expect.stringContaining('document 1 (Bad): healthInterpretation (InterpretHealth): script line 1') },
    ]);
    // The fake's compiler never ran: the worker used the real one.
    expect(runtime.compiled).toEqual([]);
  });

  it('stops a file whose parse outgrows the worker, names it and the limit, and loads the files after it', async () => {
    // About 500,000 flow-sequence items in 1 MiB: far more than 32 MiB of parsed nodes.
    writeFileSync(join(dir, 'a-huge.yaml'), `items: [${'1,'.repeat(524_000)}1]\n`);
    writeFileSync(join(dir, 'b-good.yaml'), ric('Good', 'function InterpretHealth(o) return true end'));
    // No time limit of its own: only the memory limit can stop it.
    const result = await loadCustomizations([dir], { runtime: new FakeRuntime(), offThread: { heapMb: 32, fileTimeoutMs: 600_000 } });
    expect(result.errors).toEqual([
      { file: join(dir, 'a-huge.yaml'), message: 'stopped: parsing it took more than the 32 MiB of memory a customization file may take' },
    ]);
    expect(result.interpreters.map((i) => i.name)).toEqual(['lua:Good']);
  });

  it('refuses links out of the folder as load errors of their own path', async () => {
    writeFileSync(join(dir, 'good.yaml'), ric('Good', 'function InterpretHealth(o) return true end'));
    symlinkSync('/', join(dir, 'root'));
    const result = await loadCustomizations([dir], { runtime: new FakeRuntime(), offThread: true });
    expect(result.errors).toEqual([{ file: join(dir, 'root'), message: expect.stringMatching(/^refused: it resolves outside/) }]);
    expect(result.summary).toMatchObject({ files: 1, rejectedFiles: 1, errors: 1 });
    expect(result.interpreters.map((i) => i.name)).toEqual(['lua:Good']);
  });
});

describe('watching', () => {
  it('reads nothing while dev, inode, size and mtime stay the same, and reloads once they change', async () => {
    const file = join(dir, 'w.yaml');
    writeFileSync(file, ric('Widget', 'return 1'));
    const mtime = 1_700_000_000; // whole seconds: utimes then restores the very mtime (to the nanosecond)
    utimesSync(file, mtime, mtime);
    const runtime = new FakeRuntime();
    const initial = await loadCustomizations([dir], { runtime });
    const reloads: unknown[] = [];
    handle = watchCustomizations([dir], (r) => reloads.push(r), { runtime, initial, debounceMs: 10_000, pollMs: 0 });
    const compiled = runtime.compiled.length;

    // New bytes in place, of the same length, with the old mtime put back: a poll cannot tell, so it reads nothing.
    writeFileSync(file, ric('Widget', 'return 2'));
    utimesSync(file, mtime, mtime);
    expect(await handle.reload()).toBeUndefined();
    expect(runtime.compiled.length).toBe(compiled);

    utimesSync(file, mtime, mtime + 1);
    const next = await handle.reload();
    expect(next?.errors).toEqual([]);
    expect(runtime.compiled.slice(compiled)).toEqual(['return 2']);
    expect(reloads).toEqual([next]);
  });
});
