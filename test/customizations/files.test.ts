// The walk stays inside each configured folder: links out of it are refused (and not followed), links
// inside it (a ConfigMap volume) are followed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findCustomizationFiles, findCustomizationFilesSync } from '../../src/customizations/files.ts';
import { OUTSIDE_ROOT } from '../../src/customizations/safe-read.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kiw-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const walks = [findCustomizationFiles, async (paths: readonly string[]) => findCustomizationFilesSync(paths)];

describe('findCustomizationFiles', () => {
  it('refuses links to / and to a package folder without walking them, and lists them under their own path', async () => {
    writeFileSync(join(dir, 'good.yaml'), '');
    symlinkSync('/', join(dir, 'root'));
    symlinkSync(resolve('node_modules/ajv'), join(dir, 'ajv'));
    symlinkSync('/etc/hostname', join(dir, 'host.yaml'));
    symlinkSync('/', join(dir, '.hidden')); // a name the walk would not use is not even resolved
    for (const walk of walks) {
      const found = await walk([dir]);
      expect(found.files).toEqual([join(dir, 'good.yaml')]);
      expect(found.refused.every((r) => r.message === OUTSIDE_ROOT)).toBe(true);
      expect(found.refused.map((r) => r.file).sort()).toEqual(['ajv', 'host.yaml', 'root'].map((name) => join(dir, name)));
    }
  });

  it('follows links that stay inside the folder, once, and lists a FIFO for the reader to refuse', async () => {
    mkdirSync(join(dir, '..2026_01_01'));
    writeFileSync(join(dir, '..2026_01_01', 'widget.yaml'), '');
    symlinkSync('..2026_01_01', join(dir, '..data'));
    symlinkSync(join('..data', 'widget.yaml'), join(dir, 'widget.yaml'));
    mkdirSync(join(dir, 'team'));
    symlinkSync('..', join(dir, 'team', 'loop')); // back to the root: walked once
    execFileSync('mkfifo', [join(dir, 'pipe.yaml')]);
    for (const walk of walks) {
      const found = await walk([dir]);
      expect(found.files).toEqual([join(dir, 'pipe.yaml'), join(dir, 'widget.yaml')]);
      expect(found.entries.every((entry) => entry.root === dir)).toBe(true);
      expect(found.refused).toEqual([]);
    }
  });

  it('takes an explicit file as its own root and reports paths that do not exist', async () => {
    symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
    for (const walk of walks) {
      const found = await walk([join(dir, 'zero.yaml'), join(dir, 'missing')]);
      expect(found.entries).toEqual([{ path: join(dir, 'zero.yaml') }]);
      expect(found.missing).toEqual([join(dir, 'missing')]);
    }
  });
});
