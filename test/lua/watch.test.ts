import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { LoadResult } from '../../src/customizations/loader.ts';
import { loadCustomizations } from '../../src/customizations/loader.ts';
import { watchCustomizations, type CustomizationWatch } from '../../src/customizations/watch.ts';
import { FakeRuntime } from './fake-runtime.ts';

const healthRic = (script: string) =>
  stringify({
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterCustomization',
    metadata: { name: 'widget-health' },
    spec: { target: { apiVersion: 'example.io/v1', kind: 'Widget' }, customizations: { healthInterpretation: { luaScript: script } } },
  });

const widget = { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' } };

let dir: string;
let handle: CustomizationWatch | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ric-watch-'));
});
afterEach(() => {
  handle?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves with the next reload result. */
function nextReload(reloads: LoadResult[]): Promise<LoadResult> {
  const seen = reloads.length;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (reloads.length > seen) {
        clearInterval(timer);
        resolve(reloads[seen]);
      } else if (Date.now() - started > 5000) {
        clearInterval(timer);
        reject(new Error('no reload within 5 s'));
      }
    }, 10);
  });
}

describe('watchCustomizations', () => {
  it('reloads on change, reports a broken edit while keeping the last good set, and recovers', async () => {
    const file = join(dir, 'widget.yaml');
    writeFileSync(file, healthRic('healthy-v1'));
    const runtime = new FakeRuntime({ 'healthy-v1': true, 'healthy-v2': false });
    const initial = await loadCustomizations([dir], { runtime });
    const reloads: LoadResult[] = [];
    handle = watchCustomizations([dir], (r) => reloads.push(r), { runtime, initial, debounceMs: 20, pollMs: 50 });

    writeFileSync(file, healthRic('healthy-v2'));
    const second = await nextReload(reloads);
    expect(second.errors).toEqual([]);
    expect(handle.current()).toBe(second);
    expect(await second.interpreters[0].interpretHealth!(widget)).toBe(false);

    writeFileSync(file, healthRic('function InterpretHealth(o)\n  SYNTAX ERROR\nend'));
    const broken = await nextReload(reloads);
    expect(broken.errors).toHaveLength(1);
    expect(broken.errors[0].file).toBe(file);
    expect(broken.interpreters).toEqual([]);
    expect(handle.current()).toBe(second);

    writeFileSync(file, healthRic('healthy-v1'));
    const fixed = await nextReload(reloads);
    expect(fixed.errors).toEqual([]);
    expect(handle.current()).toBe(fixed);
    expect(await fixed.interpreters[0].interpretHealth!(widget)).toBe(true);
  });

  it('debounces a burst of writes into one reload and ignores rewrites with identical content', async () => {
    const file = join(dir, 'widget.yaml');
    writeFileSync(file, healthRic('healthy-v1'));
    const runtime = new FakeRuntime({ 'healthy-v1': true, 'healthy-v2': false });
    const reloads: LoadResult[] = [];
    handle = watchCustomizations([dir], (r) => reloads.push(r), { runtime, debounceMs: 150, pollMs: 0 });

    writeFileSync(file, healthRic('healthy-v1'));
    expect(await handle.reload()).toBeUndefined();

    for (let i = 0; i < 5; i++) writeFileSync(file, healthRic(i % 2 ? 'healthy-v1' : 'healthy-v2'));
    await nextReload(reloads);
    await new Promise((r) => setTimeout(r, 400));
    expect(reloads).toHaveLength(1);
    expect(runtime.compiled.filter((s) => s === 'healthy-v2')).toHaveLength(1);
  });

  it('sees changes in nested folders through the recursive file watch alone', async () => {
    const nested = join(dir, 'team-a', 'widgets');
    mkdirSync(nested, { recursive: true });
    writeFileSync(join(nested, 'w.yaml'), healthRic('healthy-v1'));
    const runtime = new FakeRuntime({ 'healthy-v1': true, 'healthy-v2': false });
    const reloads: LoadResult[] = [];
    handle = watchCustomizations([dir], (r) => reloads.push(r), { runtime, debounceMs: 20, pollMs: 0 });
    writeFileSync(join(nested, 'w.yaml'), healthRic('healthy-v2'));
    const result = await nextReload(reloads);
    expect(await result.interpreters[0].interpretHealth!(widget)).toBe(false);
  });

  it('picks up a directory created after the watch started, through the poll', async () => {
    const later = join(dir, 'later');
    const runtime = new FakeRuntime({ 'healthy-v1': true });
    const reloads: LoadResult[] = [];
    handle = watchCustomizations([later], (r) => reloads.push(r), { runtime, debounceMs: 10, pollMs: 40 });
    // Prepared elsewhere and renamed into place, so the poll cannot see it half-written.
    const staging = mkdtempSync(join(dir, 'staging-'));
    writeFileSync(join(staging, 'w.yaml'), healthRic('healthy-v1'));
    renameSync(staging, later);
    const result = await nextReload(reloads);
    expect(result.interpreters.map((i) => i.name)).toEqual(['lua:widget-health']);
  });
});
