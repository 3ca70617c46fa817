// Issue 31, item 1: no Lua call ends the process, whatever it allocates. A real server process (default
// --lua-memory-limit, 128 MiB) receives the issue's script (a table.concat of 480 parts around a 1 MB
// separator, which used to end the process with V8's fatal out-of-memory about 300 ms after the request)
// and the largest cases of the allocation matrix (test/lua/allocation-limits.test.ts): results from ten
// to a thousand times the budget, or the most a script can express. Each gets HTTP 200 with
// successful:false naming the customization and the memory limit, and afterwards the same process
// answers /healthz and an ordinary request.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InterpreterContext } from '../../src/protocol/wire.ts';
import { expectWellFormed } from '../reliability/envelope-check.ts';
import { send, spawnServer, type SpawnedServer } from '../support/spawned-server.ts';

const BUDGET = 128 * 1024 * 1024;
/** string.format's format is at most 1,000,000 bytes (Karmada's check): verbs it can hold. */
const verbsFitting = (verb: string) => Math.floor(1_000_000 / verb.length);
const SPACES = 'local s = string.format("%1000000s", "")';
const CONTROLS = 'local s = string.char(1) for i = 1, 16 do s = s .. s end';
const verbs = (verb: string, n: number) => `local f = {} for i = 1, ${n} do f[i] = "${verb}" end f = table.concat(f)`;
const kept = (setup: string, expression: string, n: number) => `${setup} local r = {} for i = 1, ${n} do r[i] = ${expression} end return #r[1] > 0`;
/** Repetitions of `unit` bytes for `factor` times the budget, at most `most`. */
const times = (factor: number, unit: number, most = Infinity) => Math.min(most, Math.ceil((factor * BUDGET) / unit));

const ISSUE_SCRIPT = 'local sep = string.format("%1000000s", "") local t = {} for i = 1, 480 do t[i] = "x" end return #table.concat(t, sep) > 0';

/** InterpretHealth bodies, by name: each builtin at 10 and 1000 times the budget (or the most it can express). */
function attacks(): Record<string, string> {
  const out: Record<string, string> = { issue: ISSUE_SCRIPT };
  for (const factor of [10, 1000]) {
    const cases: Record<string, string> = {
      'concat-separator': `${SPACES} local t = {} for i = 1, ${times(factor, 1e6) + 1} do t[i] = "x" end return #table.concat(t, s) > 0`,
      'concat-refs': `${SPACES} local t = {} for i = 1, ${times(factor, 1e6)} do t[i] = s end return #table.concat(t) > 0`,
      'format-width': `${verbs('%1000000[1]s', times(factor, 1e6, verbsFitting('%1000000[1]s')))} return #string.format(f, "") > 0`,
      'format-precision': `${verbs('%.999999[1]f', times(factor, 1e6, verbsFitting('%.999999[1]f')))} return #string.format(f, 1.5) > 0`,
      'format-zeros': `${verbs('%01000000[1]d', times(factor, 1e6, verbsFitting('%01000000[1]d')))} return #string.format(f, 7) > 0`,
      'format-s': `${SPACES} ${verbs('%[1]s', times(factor, 1e6, verbsFitting('%[1]s')))} return #string.format(f, s) > 0`,
      'format-x': `${SPACES} ${verbs('%[1]x', times(factor, 2e6, verbsFitting('%[1]x')))} return #string.format(f, s) > 0`,
      'format-q': `${CONTROLS} ${verbs('%[1]q', times(factor, 4 * 2 ** 16, verbsFitting('%[1]q')))} return #string.format(f, s) > 0`,
      // the format is a tenth of the result: past the budget it is the format that fails
      'os-date': `local t = {} for i = 1, ${times(factor, 19 * 1000)} do t[i] = "${'%c'.repeat(1000)}" end return #os.date("!" .. table.concat(t)) > 0`,
      'upper-kept': kept(SPACES, 's:upper()', times(factor, 1e6)),
      'upper-utf8-kept': kept('local s = "é" for i = 1, 18 do s = s .. s end', 's:upper()', times(factor, 2 ** 19)),
      'reverse-kept': kept(SPACES, 's:reverse()', times(factor, 1e6)),
      'sub-kept': kept(SPACES, 's:sub(2)', times(factor, 1e6)),
      // the helper encodes its argument, which holds one 1 MB string many times
      'kube-encode': `${SPACES} local t = {} for i = 1, ${times(factor, 1e6)} do t[i] = s end return require("kube").accuratePodRequirements({ spec = { containers = { { name = "c", args = t } } } }) ~= nil`,
    };
    for (const [name, body] of Object.entries(cases)) out[`${name}-${factor}x`] = body;
  }
  // one OP_CONCAT of 150 operands of 1 MB (fengari's parser allows 200 levels): 150 MB, the most it holds
  out['dotdot-150'] = `${SPACES} local r = ${Array.from({ length: 150 }, () => 's').join(' .. ')} return #r > 0`;
  return out;
}

/** A customization for kind `kind` whose `field` runs `body` as its Lua function. */
function customization(name: string, kind: string, field: string, functionName: string, body: string): string {
  return `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: ${name}
spec:
  target:
    apiVersion: alloc.example.io/v1
    kind: ${kind}
  customizations:
    ${field}:
      luaScript: |
        function ${functionName}(obj)
          ${body}
        end
`;
}

function request(kind: string, uid: string, operation = 'InterpretHealth') {
  const object = { apiVersion: 'alloc.example.io/v1', kind, metadata: { name: 'a', namespace: 'default' }, spec: {}, status: { ready: true } };
  return {
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterContext',
    request: { uid, kind: { group: 'alloc.example.io', version: 'v1', kind }, name: 'a', namespace: 'default', operation, object },
  };
}

const ATTACKS = Object.entries(attacks()).map(([name, body], i) => ({ name, body, kind: `Alloc${i}`, customization: `alloc-${name}` }));

describe('allocations past the memory budget against the real server', () => {
  let server: SpawnedServer;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kiw-alloc-'));
    for (const a of ATTACKS)
      await writeFile(join(dir, `${a.customization}.yaml`), customization(a.customization, a.kind, 'healthInterpretation', 'InterpretHealth', a.body));
    await writeFile(
      join(dir, 'healthy.yaml'),
      customization('alloc-healthy', 'Healthy', 'healthInterpretation', 'InterpretHealth', 'return obj.status.ready == true'),
    );
    // the result's encoding, on its way to JSON: ReflectStatus returning one 1 MB string 134,218 times
    await writeFile(
      join(dir, 'result.yaml'),
      customization(
        'alloc-result',
        'Result',
        'statusReflection',
        'ReflectStatus',
        `${SPACES} local t = {} for i = 1, ${times(1000, 1e6)} do t[i] = s end return { refs = t }`,
      ),
    );
    // What stops these calls is memory: the time limit is far past it (the slowest, non-ASCII upper, meets
    // the memory limit after ~4 s here), just under the requests' own 30 s, so a busy machine still does.
    server = await spawnServer(['--customizations', dir, '--lua-workers', '2', '--lua-timeout', '25s']);
    for (let i = 0; i < 200 && (await send(server, { path: '/readyz' })).status !== 200; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function interpret(envelope: ReturnType<typeof request>): Promise<InterpreterContext> {
    const answer = await send(server, { path: '/interpret?timeout=30s', body: JSON.stringify(envelope) });
    return expectWellFormed(answer.status, answer.body, envelope);
  }

  async function stillServing(): Promise<void> {
    expect(server.child.exitCode).toBeNull();
    expect(server.child.signalCode).toBeNull();
    expect((await send(server, { path: '/healthz' })).status).toBe(200);
    const ordinary = await interpret(request('Healthy', 'healthy'));
    expect(ordinary.response).toMatchObject({ successful: true, healthy: true });
  }

  it("the issue's script is answered with the memory-limit error at its line", async () => {
    const context = await interpret(request(ATTACKS[0]!.kind, 'issue'));
    expect(context.response).toMatchObject({ successful: false, status: { code: 500 } });
    expect(context.response!.status!.message).toContain('alloc-issue');
    expect(context.response!.status!.message).toMatch(/script line 2\b.*memory limit exceeded: the call grew the heap by more than 128 MiB/);
    await stillServing();
  });

  it.each(ATTACKS.slice(1).map((a) => [a.name, a] as const))('%s: the memory-limit error, and the server keeps serving', async (_name, attack) => {
    const context = await interpret(request(attack.kind, attack.name));
    expect(context.response).toMatchObject({ successful: false, status: { code: 500 } });
    expect(context.response!.status!.message).toContain(attack.customization);
    expect(context.response!.status!.message).toMatch(/memory limit/);
    await stillServing();
  });

  it('a result holding one 1 MB string 134,218 times fails at the budget while it is encoded', async () => {
    const context = await interpret(request('Result', 'result', 'InterpretStatus'));
    expect(context.response).toMatchObject({ successful: false, status: { code: 500 } });
    expect(context.response!.status!.message).toMatch(/alloc-result.*memory limit/);
    await stillServing();
  });
});
