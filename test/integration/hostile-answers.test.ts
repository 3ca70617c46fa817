// Attacks through what a Lua script answers (issue 33 item 4), against the real server process with
// attack-harness.ts: a huge error message, several customizations' dependencies merged into one answer,
// and a small object whose patch would be huge. Each gets a well-formed envelope of a few KiB within its
// deadline (plus a small grace) while ordinary traffic beside it stays under 300 ms and the server's
// memory under 1 GB. README.md ("Reliability") lists them.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DEPENDENCIES } from '../../src/interpreter/answer-limits.ts';
import { decodePatch, MAX_PATCH_BYTES } from '../../src/protocol/patch.ts';
import { attackRequest, beside, customization, GRACE_MS, health, interpret, LUA_TIMEOUT_MS, sleep } from './attack-harness.ts';
import { send, spawnServer, type SpawnedServer } from '../support/spawned-server.ts';

/** Status messages are cut at 4096 characters; with the envelope an answer stays under this. */
const SMALL_ANSWER = 8192;

const dependencies = (kind: string, index: number, count: number) =>
  customization(
    kind,
    'dependencyInterpretation',
    'GetDependencies',
    'obj',
    `local d = {}\nfor i = 1, ${count} do d[i] = { apiVersion = "v1", kind = "ConfigMap", namespace = "default", name = "config-${index}-" .. i } end\nreturn d`,
  ).replace(`name: attack-${kind.toLowerCase()}`, `name: attack-${kind.toLowerCase()}-${index}`);

const CUSTOMIZATIONS: Record<string, string> = {
  'error.yaml': health('ErrorBomb', 'local s = string.format("%1048576s", "")\nlocal t = {}\nfor i = 1, 16 do t[i] = s end\nerror(table.concat(t))'),
  // 4 customizations of one kind: 40,000 references each (past the bound of one script's share), and
  // 3,000 each (each within it, the merged answer past it).
  ...Object.fromEntries([0, 1, 2, 3].map((i) => [`deps-${i}.yaml`, dependencies('DepsBomb', i, 40_000)])),
  ...Object.fromEntries([0, 1, 2, 3].map((i) => [`merged-${i}.yaml`, dependencies('DepsMerged', i, 3_000)])),
  'untouched.yaml': customization('Untouched', 'replicaRevision', 'ReviseReplica', 'obj, replicas', 'obj.spec.replicas = replicas\nreturn obj'),
  // The 600 KB annotation copied 26 times: a result under the 16 MiB of a Lua result, a 15.6 MB patch
  // (20.8 MB of base64); before the patch bound the main thread parsed, diffed and encoded all of it.
  'revise.yaml': customization(
    'ReviseBomb',
    'replicaRevision',
    'ReviseReplica',
    'obj, replicas',
    'local big = obj.metadata.annotations.big\nfor i = 1, 26 do obj.spec["copy" .. i] = big end\nobj.spec.replicas = replicas\nreturn obj',
  ),
};

describe('hostile answers against the real server', () => {
  let server: SpawnedServer;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kiw-answers-'));
    for (const [file, text] of Object.entries(CUSTOMIZATIONS)) await writeFile(join(dir, file), text);
    server = await spawnServer(['--customizations', dir, '--lua-timeout', `${LUA_TIMEOUT_MS}ms`, '--lua-workers', '2']);
    for (let i = 0; i < 100 && (await send(server, { path: '/readyz' })).status !== 200; i++) await sleep(50);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('Lua: six callers of a 16 MiB error() for seconds get its first 3 KiB, each in time', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 6 });
    const answers: Array<{ message: string; ms: number; bytes: number }> = [];
    await beside(server, async () => {
      const until = performance.now() + 4000;
      await Promise.all(
        Array.from({ length: 6 }, async (_, caller) => {
          for (let n = 0; performance.now() < until; n++) {
            const { context, ms, bytes } = await interpret(server, attackRequest('ErrorBomb', `error-${caller}-${n}`), agent);
            expect(context.response).toMatchObject({ successful: false, status: { code: 500 } });
            answers.push({ message: context.response!.status!.message ?? '', ms, bytes });
          }
        }),
      );
    });
    agent.destroy();
    expect(answers.length).toBeGreaterThan(6);
    for (const { message, ms, bytes } of answers) {
      expect(message).toMatch(/^customization attack-errorbomb: InterpretHealth: script line \d+ .*: {100}.*… \(an error message of \d+ bytes, cut\)$/s);
      expect(bytes).toBeLessThan(SMALL_ANSWER);
      // Six callers share two workers: a call waits for at most the five before it.
      expect(ms).toBeLessThan(3 * LUA_TIMEOUT_MS + GRACE_MS);
    }
  });

  it('Lua: 4 customizations of one kind answering 40,000 dependencies each are refused in the worker', async () => {
    const { context, ms, bytes } = await beside(server, () => interpret(server, attackRequest('DepsBomb', 'deps-bomb', 'InterpretDependency')));
    expect(context.response).toMatchObject({ successful: false, status: { code: 500 } });
    // Building 40,000 tables takes fengari most of a second: the time limit may come first on a busy machine.
    expect(context.response!.status!.message).toMatch(
      new RegExp(
        `^customization attack-depsbomb-0: GetDependencies: (the result has 40000 dependencies, over the limit of ${MAX_DEPENDENCIES} per answer|.*timeout: .*(timed out|time limit))`,
      ),
    );
    expect(bytes).toBeLessThan(SMALL_ANSWER);
    expect(ms).toBeLessThan(LUA_TIMEOUT_MS + GRACE_MS);
  });

  it('Lua: 4 customizations whose merged dependencies pass the bound are refused as a whole', async () => {
    const { context, ms, bytes } = await beside(server, () => interpret(server, attackRequest('DepsMerged', 'deps-merged', 'InterpretDependency')));
    expect(context.response).toMatchObject({ successful: false, status: { code: 500 } });
    expect(context.response!.status!.message).toBe(
      `customizations attack-depsmerged-0, attack-depsmerged-1, attack-depsmerged-2, attack-depsmerged-3: GetDependencies: the merged answer has 12000 dependencies, over the limit of ${MAX_DEPENDENCIES} per answer`,
    );
    expect(bytes).toBeLessThan(SMALL_ANSWER);
    expect(ms).toBeLessThan(4 * (LUA_TIMEOUT_MS + GRACE_MS));
  });

  it('Lua: a 600 KB ReviseReplica whose patch would be 20 MB is refused in the worker', async () => {
    const envelope = attackRequest('ReviseBomb', 'revise-bomb', 'ReviseReplica') as ReturnType<typeof attackRequest> & { request: { replicas?: number } };
    envelope.request.replicas = 2;
    (envelope.request.object.metadata as Record<string, unknown>).annotations = { big: 'x'.repeat(600_000) };
    const { context, ms, bytes } = await beside(server, () => interpret(server, envelope));
    expect(context.response).toMatchObject({ successful: false, status: { code: 500 } });
    // The patch bound, or the memory limit first on a machine where encoding 20 MB of copies passes it.
    expect(context.response!.status!.message).toMatch(
      new RegExp(
        `^customization attack-revisebomb: ReviseReplica: (the result differs from the object by a patch over the limit of ${MAX_PATCH_BYTES} bytes of JSON|.*memory limit)`,
      ),
    );
    expect(bytes).toBeLessThan(SMALL_ANSWER);
    expect(ms).toBeLessThan(LUA_TIMEOUT_MS + GRACE_MS);
  });

  it('Lua: a ReviseReplica patch holds only what the script changed, whatever bytes the untouched fields have', async () => {
    const envelope = attackRequest('Untouched', 'untouched', 'ReviseReplica') as ReturnType<typeof attackRequest> & { request: { replicas?: number } };
    envelope.request.replicas = 2;
    // Karmada (Go) keeps a leading BOM of a value or key; it decodes the escaped lone surrogate to one U+FFFD.
    envelope.request.object.spec = { replicas: 1, weird: '\ufeffabc', '\ufeffk': 'v', lone: '\ud800', '\udc00key': { a: '\udfff' } };
    const { context } = await interpret(server, envelope);
    expect(context.response).toMatchObject({ successful: true, patchType: 'JSONPatch' });
    expect(decodePatch(context.response!.patch!)).toEqual([{ op: 'replace', path: '/spec/replicas', value: 2 }]);
  });
});
