// `npm start` builds only when a source changed since the last build (scripts/build-if-stale.ts).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { staleReason } from '../../scripts/build-if-stale.ts';

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

function tree(): string {
  const root = mkdtempSync(join(tmpdir(), 'kiw-stale-'));
  roots.push(root);
  for (const dir of ['src/a', 'interpreters', 'dist']) mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, 'src/a/x.ts'), 'export {};\n');
  writeFileSync(join(root, 'tsconfig.json'), '{}');
  return root;
}

/** Sets a path's times to `seconds` after the epoch. */
function at(path: string, seconds: number): void {
  utimesSync(path, seconds, seconds);
}

describe('staleReason', () => {
  it('asks for a build without a previous one, and after any input changed; not otherwise', () => {
    const root = tree();
    expect(staleReason(root)).toBe('no build yet');
    for (const path of ['src/a/x.ts', 'src/a', 'src', 'interpreters', 'tsconfig.json']) at(join(root, path), 1000);
    writeFileSync(join(root, 'dist/.tsbuildinfo'), '{}');
    at(join(root, 'dist/.tsbuildinfo'), 2000);
    expect(staleReason(root)).toBeUndefined();
    at(join(root, 'src/a/x.ts'), 3000);
    expect(staleReason(root)).toBe('src changed since the last build');
    at(join(root, 'src/a/x.ts'), 1000);
    // A file removed or added changes its folder's time.
    at(join(root, 'interpreters'), 3000);
    expect(staleReason(root)).toBe('interpreters changed since the last build');
  });
});

describe('bin/karmada-interpreter.js', () => {
  it('says to build when dist/ is missing instead of a module-not-found stack', () => {
    const root = mkdtempSync(join(tmpdir(), 'kiw-bin-'));
    roots.push(root);
    cpSync('bin', join(root, 'bin'), { recursive: true });
    writeFileSync(join(root, 'package.json'), '{"type":"module"}');
    const result = spawnSync(process.execPath, [join(root, 'bin/karmada-interpreter.js'), '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('karmada-interpreter: dist/ is not built; run `npm ci` (or `npm run build`) in the checkout first\n');
  });
});
