// Issue 33 item 1, the hostile customization files, against the real server process with attack-harness.ts:
// each attack file is reported as a load error naming it (or, when harmless, simply loads) while ordinary
// traffic beside it stays under 300 ms, the server under 1 GB, and /readyz lists nothing outside the
// configured folder. README.md ("Reliability") lists them.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beside, health, sleep } from './attack-harness.ts';
import { send, spawnServer, type SpawnedServer } from '../support/spawned-server.ts';

const REJECTED = 'customization reload rejected';
const RELOADED = 'reloaded customizations';
/** The watch's poll (watch.ts): an attack that must survive polls runs a little longer than one. */
const POLL_MS = 5000;

/** The errors of the first rejected reload logged after `from` whose errors name `file`. */
async function loadError(server: SpawnedServer, from: number, file: string): Promise<{ errors: Array<{ file: string; message: string }>; message: string }> {
  for (;;) {
    const entry = server.logs
      .slice(from)
      .find((l) => typeof l.msg === 'string' && l.msg.startsWith(REJECTED) && l.errors.some((e: { file: string }) => e.file === file));
    if (entry) return { errors: entry.errors, message: entry.errors.find((e: { file: string }) => e.file === file).message };
    await sleep(50);
  }
}

async function reloaded(server: SpawnedServer, from: number): Promise<void> {
  while (!server.logs.slice(from).some((l) => l.msg === RELOADED)) await sleep(50);
}

async function readyz(server: SpawnedServer): Promise<string> {
  return (await send(server, { path: '/readyz' })).body;
}

/** /readyz names no path outside `dir`: every absolute path in it is `dir` or under it. */
function expectInside(body: string, dir: string) {
  const paths = body.match(/\/[\w.@-]+(?:\/[\w.@-]+)*/g) ?? [];
  expect(paths.filter((path) => path !== dir && !path.startsWith(`${dir}/`))).toEqual([]);
}

const good = (kind: string) => health(kind, 'return true');

describe('hostile customization files against the real server', () => {
  let server: SpawnedServer;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kiw-hostile-files-'));
    await writeFile(join(dir, 'good.yaml'), good('Good'));
    server = await spawnServer(['--customizations', dir, '--lua-workers', '2']);
    for (let i = 0; i < 200 && (await send(server, { path: '/readyz' })).status !== 200; i++) await sleep(50);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('a 1 GB sparse file is refused unread, and later polls read nothing', async () => {
    const big = join(dir, 'big.yaml');
    const from = server.logs.length;
    const { message } = await beside(server, async () => {
      // Made under a dot name (never read) and renamed into place: one change, whatever the timing.
      await writeFile(join(dir, '.big'), '');
      await truncate(join(dir, '.big'), 1024 * 1024 * 1024);
      await rename(join(dir, '.big'), big);
      const error = await loadError(server, from, big);
      await sleep(POLL_MS + 500);
      return error;
    });
    expect(message).toContain('refused: 1073741824 bytes, over the limit of 1048576 bytes');
    // Nothing changed since: no poll loaded the folder again.
    expect(server.logs.slice(from).filter((l) => l.msg?.startsWith(REJECTED))).toHaveLength(1);
    expectInside(await readyz(server), dir);
    const after = server.logs.length;
    await rm(big);
    await reloaded(server, after);
  }, 60_000);

  it.each([
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path]), 'refused: a FIFO, not a regular file'],
    ['a link to /dev/zero', (path: string) => symlink('/dev/zero', path), 'refused: it resolves outside its --customizations folder'],
  ])(
    'the last of 300 files replaced by %s, 320 ms after a change, is refused',
    async (_name, make, expected) => {
      const many = join(dir, 'many');
      await mkdir(many);
      const file = (i: number) => join(many, `${String(i).padStart(3, '0')}.yaml`);
      let from = server.logs.length;
      for (let i = 0; i < 300; i++) await writeFile(file(i), good(`Many${i}`));
      await reloaded(server, from);
      from = server.logs.length;
      const { message } = await beside(server, async () => {
        await writeFile(file(0), health('Many0', 'return false'));
        await sleep(320);
        await make(join(dir, 'swap'));
        await rename(join(dir, 'swap'), file(299));
        return loadError(server, from, file(299));
      });
      expect(message).toContain(expected);
      expectInside(await readyz(server), dir);
      const after = server.logs.length;
      await rm(many, { recursive: true });
      await reloaded(server, after);
    },
    60_000,
  );

  it('links to / and to node_modules/ajv are refused without reading what is behind them; /readyz names nothing outside', async () => {
    const from = server.logs.length;
    const { errors } = await beside(server, async () => {
      await symlink('/', join(dir, 'root'));
      await symlink(resolve('node_modules/ajv'), join(dir, 'ajv'));
      await loadError(server, from, join(dir, 'root'));
      return loadError(server, from, join(dir, 'ajv'));
    });
    // Only the two links: no YAML of other software was read.
    expect(errors.map((e) => e.file).sort()).toEqual([join(dir, 'ajv'), join(dir, 'root')]);
    for (const { message } of errors) expect(message).toMatch(/^refused: it resolves outside its --customizations folder/);
    const body = await readyz(server);
    expectInside(body, dir);
    expect(body).not.toContain('node_modules');
    const after = server.logs.length;
    await rm(join(dir, 'root'));
    await rm(join(dir, 'ajv'));
    await reloaded(server, after);
  }, 60_000);

  it('a customization with 923 KB of annotations loads, off the main thread', async () => {
    const text = good('Annotated').replace(
      'metadata:\n',
      `metadata:\n  annotations:\n${Array.from({ length: 920 }, (_, i) => `    a${i}: "${'x'.repeat(1000)}"`).join('\n')}\n`,
    );
    expect(text.length).toBeGreaterThan(923_000);
    const from = server.logs.length;
    await beside(server, async () => {
      await writeFile(join(dir, 'annotated.yaml'), text);
      await reloaded(server, from);
    });
    const after = server.logs.length;
    await rm(join(dir, 'annotated.yaml'));
    await reloaded(server, after);
  }, 60_000);

  it('960 KB of nested [ is stopped on the load worker and named', async () => {
    const nested = join(dir, 'nested.yaml');
    const from = server.logs.length;
    const { message } = await beside(server, async () => {
      await writeFile(nested, `a: ${'['.repeat(960_000)}\n`);
      return loadError(server, from, nested);
    });
    expect(message).toMatch(/^(stopped: |document 1: invalid YAML)/);
    expectInside(await readyz(server), dir);
    await rm(nested);
  }, 60_000);
});

describe('an explicit --customizations FILE', () => {
  let server: SpawnedServer;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kiw-hostile-file-'));
    await writeFile(join(dir, 'widget.yaml'), good('Widget'));
    server = await spawnServer(['--customizations', join(dir, 'widget.yaml'), '--lua-workers', '2']);
    for (let i = 0; i < 200 && (await send(server, { path: '/readyz' })).status !== 200; i++) await sleep(50);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('replaced by a link to /dev/zero is refused: its real path must be a regular file', async () => {
    const file = join(dir, 'widget.yaml');
    const from = server.logs.length;
    const { message } = await beside(server, async () => {
      await symlink('/dev/zero', join(dir, 'swap'));
      await rename(join(dir, 'swap'), file);
      return loadError(server, from, file);
    });
    expect(message).toContain('refused: a character device, not a regular file');
    expectInside(await readyz(server), dir);
  }, 60_000);
});
