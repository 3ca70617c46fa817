// What the reader refuses before reading a byte, and what it still reads: ConfigMap links inside the root.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_CUSTOMIZATION_FILE_BYTES,
  OUTSIDE_ROOT,
  readCustomizationFile,
  readCustomizationFileSync,
  readResolved,
  readResolvedSync,
  SWAPPED,
} from '../../src/customizations/safe-read.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kiw-safe-read-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const both = (path: string, root?: string) => [() => readCustomizationFile({ path, root }), async () => readCustomizationFileSync({ path, root })];

describe('readCustomizationFile', () => {
  it('refuses a FIFO without blocking on it, naming what it is', async () => {
    const fifo = join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    // Nobody ever opens the FIFO's other end: a blocking open would never return.
    for (const read of both(fifo, dir)) await expect(read()).rejects.toThrow('refused: a FIFO, not a regular file');
  });

  it('refuses an explicit file that is a link to /dev/zero: its own root, but not a regular file', async () => {
    const file = join(dir, 'zero.yaml');
    symlinkSync('/dev/zero', file);
    for (const read of both(file)) await expect(read()).rejects.toThrow('refused: a character device, not a regular file');
  });

  it('refuses a file over 1 MiB unread, naming the bound', async () => {
    const big = join(dir, 'big.yaml');
    writeFileSync(big, '');
    truncateSync(big, 1024 * 1024 * 1024); // sparse: reading it would take 1 GB
    for (const read of both(big, dir))
      await expect(read()).rejects.toThrow(`refused: 1073741824 bytes, over the limit of ${MAX_CUSTOMIZATION_FILE_BYTES} bytes (1 MiB`);
    writeFileSync(big, 'x'.repeat(MAX_CUSTOMIZATION_FILE_BYTES));
    for (const read of both(big, dir)) expect((await read()).length).toBe(MAX_CUSTOMIZATION_FILE_BYTES);
  });

  it('refuses a file whose real path leaves its root, and says nothing of where it leads', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'kiw-outside-'));
    try {
      writeFileSync(join(outside, 'secret.yaml'), 'a: 1\n');
      symlinkSync(join(outside, 'secret.yaml'), join(dir, 'link.yaml'));
      for (const read of both(join(dir, 'link.yaml'), dir)) {
        const error = await read().then(
          () => undefined,
          (e: Error) => e,
        );
        expect(error?.message).toMatch(/^refused: it resolves outside its --customizations folder/);
        expect(error?.message).not.toContain(outside);
      }
      // An explicit file is its own root: a link to a regular file elsewhere is read.
      for (const read of both(join(dir, 'link.yaml'))) expect((await read()).toString()).toBe('a: 1\n');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('reads the files of a ConfigMap volume: links through ..data into a timestamped folder inside the root', async () => {
    mkdirSync(join(dir, '..2026_01_01'));
    writeFileSync(join(dir, '..2026_01_01', 'widget.yaml'), 'kind: x\n');
    symlinkSync('..2026_01_01', join(dir, '..data'));
    symlinkSync(join('..data', 'widget.yaml'), join(dir, 'widget.yaml'));
    for (const read of both(join(dir, 'widget.yaml'), dir)) expect((await read()).toString()).toBe('kind: x\n');
  });
});

// readResolved is what follows realpath: called on a path realpath would not return, it sees what a swap
// between realpath and open would leave there.
describe('a path swapped after realpath', () => {
  const resolved = (real: string, root: string) => [() => readResolved(real, root), async () => readResolvedSync(real, root)];
  let outside: string;
  beforeEach(() => {
    outside = mkdtempSync(join(tmpdir(), 'kiw-safe-read-outside-'));
    writeFileSync(join(outside, 'secret.yaml'), 'secret: 1\n');
  });
  afterEach(() => rmSync(outside, { recursive: true, force: true }));

  it('a link now at the real path is not followed, even one to a file inside the root', async () => {
    writeFileSync(join(dir, 'good.yaml'), 'good: 1\n');
    symlinkSync(join(outside, 'secret.yaml'), join(dir, 'out.yaml'));
    symlinkSync(join(dir, 'good.yaml'), join(dir, 'in.yaml'));
    for (const link of ['out.yaml', 'in.yaml']) {
      for (const read of resolved(join(dir, link), dir)) await expect(read()).rejects.toThrow(SWAPPED);
    }
    for (const read of resolved(join(dir, 'good.yaml'), dir)) expect((await read()).toString()).toBe('good: 1\n');
  });

  it('a folder on the way now a link out of the root is refused, naming nothing outside', async () => {
    symlinkSync(outside, join(dir, 'sub'));
    for (const read of resolved(join(dir, 'sub', 'secret.yaml'), dir)) {
      const error = await read().catch((e: Error) => e);
      expect(error).toMatchObject({ message: OUTSIDE_ROOT });
    }
  });
});
