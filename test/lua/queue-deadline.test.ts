// A Lua call that is still waiting for its turn when its request's deadline has passed is not run: the
// server has answered 504 by then, and under a burst the queue would otherwise keep running work for
// callers long gone.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/interpreter/setup.ts';
import { InterpreterError } from '../../src/interpreter/types.ts';
import { toInterpreterError } from '../../src/lua/interpreter.ts';
import { LuaRuntime, LuaScriptError } from '../../src/lua/runtime.ts';
import { buildApp } from '../../src/server/app.ts';
import { silentLogger } from '../support/app.ts';
import { workload } from './helpers.ts';

const runaway = `function InterpretHealth(o) while true do end end`;
const printing = `function InterpretHealth(o) print('ran') return true end`;

describe('a queued Lua call whose request deadline has passed', () => {
  const rt = new LuaRuntime({ timeoutMs: 1000 });
  afterAll(() => rt.close());

  it('is not run, and says why; calls without a deadline behind it still run', async () => {
    const printed: string[] = [];
    // The first runaway runs at once and holds the event loop for 300 ms, so the calls after it queue;
    // the second runaway holds the queue for another 300 ms.
    const blocking = rt.interpretHealth(runaway, workload(), { timeoutMs: 300 }).catch((e: unknown) => e);
    const holding = rt.interpretHealth(runaway, workload(), { timeoutMs: 300 }).catch((e: unknown) => e);
    const queued = rt.interpretHealth(printing, workload(), { onPrint: (line) => printed.push(line), notAfter: performance.now() + 50 }).catch((e: unknown) => e);
    const after = rt.interpretHealth(printing, workload(), { onPrint: (line) => printed.push(line) });

    expect((await blocking as LuaScriptError).timeout).toBe(true);
    expect((await holding as LuaScriptError).timeout).toBe(true);
    const skipped = (await queued) as LuaScriptError;
    expect(skipped).toBeInstanceOf(LuaScriptError);
    expect(skipped.abandoned).toBe(true);
    expect(skipped.timeout).toBe(true);
    expect(skipped.message).toMatch(/^InterpretHealth: not run: the request's deadline passed while the call waited \d+ ms for its turn$/);
    expect(Number(/waited (\d+) ms/.exec(skipped.message)![1])).toBeGreaterThanOrEqual(250);
    expect(await after).toBe(true);
    expect(printed).toEqual(['ran']); // only the call without a deadline ran
  });

  it('runs when its turn comes before the deadline', async () => {
    const printed: string[] = [];
    expect(await rt.interpretHealth(printing, workload(), { onPrint: (line) => printed.push(line), notAfter: performance.now() + 5000 })).toBe(true);
    expect(printed).toEqual(['ran']);
  });

  it('becomes a 504 naming the customization, like the answer the server already gave', () => {
    const error = toInterpreterError(new LuaScriptError('not run: waited', { functionName: 'InterpretHealth', timeout: true, abandoned: true }), 'my-ric', 'InterpretHealth');
    expect(error).toBeInstanceOf(InterpreterError);
    expect((error as InterpreterError).code).toBe(504);
    expect((error as InterpreterError).reason).toBe('timeout');
    expect((error as InterpreterError).message).toBe('customization my-ric: InterpretHealth: not run: waited');
  });
});

describe('the server', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it("passes each request's deadline to its Lua calls: the one that waited past it is answered 504 and never run", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kiw-queue-deadline-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const customization = (kind: string, script: string) => `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: ${kind.toLowerCase()}
spec:
  target:
    apiVersion: example.io/v1
    kind: ${kind}
  customizations:
    healthInterpretation:
      luaScript: |
        ${script}
`;
    await writeFile(join(dir, 'spinner.yaml'), customization('Spinner', runaway));
    await writeFile(join(dir, 'quick.yaml'), customization('Quick', printing));
    const loaded = await createRegistry({ customizations: [dir], luaTimeoutMs: 700 });
    cleanup.push(() => loaded.close());
    const app = buildApp({ registry: loaded.registry, logger: silentLogger });
    cleanup.push(() => app.close());

    const request = (kind: string, uid: string, timeout: string) =>
      app.inject({
        method: 'POST',
        url: `/interpret?timeout=${timeout}`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({
          apiVersion: 'config.karmada.io/v1alpha1',
          kind: 'ResourceInterpreterContext',
          request: { uid, kind: { group: 'example.io', version: 'v1', kind }, name: 'x', namespace: 'default', operation: 'InterpretHealth', object: { apiVersion: 'example.io/v1', kind, metadata: { name: 'x', namespace: 'default' } } },
        }),
      }).then((answer) => JSON.parse(answer.body).response);

    const callsRun = () => loaded.runtime.stats().cacheHits + loaded.runtime.stats().cacheMisses;
    const before = callsRun();
    // The first spinner holds the event loop for 700 ms, so the calls after it queue; the second holds
    // the queue for 700 ms more. The quick request's deadline is 270 ms (a 300 ms timeout less our 10%
    // margin), so it is answered 504 while it waits, and then skipped.
    const [first, second, quick] = await Promise.all([request('Spinner', 'spin-1', '10s'), request('Spinner', 'spin-2', '10s'), request('Quick', 'quick-1', '300ms')]);
    expect(quick.successful).toBe(false);
    expect(quick.status.code).toBe(504);
    for (const spinner of [first, second]) {
      expect(spinner.status.code).toBe(500);
      expect(spinner.status.message).toMatch(/timed out after 700ms/);
    }
    await new Promise((resolve) => setTimeout(resolve, 50)); // the quick call's turn has come and gone
    expect(callsRun() - before).toBe(2); // the spinners only

    // A request whose turn comes in time still runs.
    const again = await request('Quick', 'quick-2', '10s');
    expect(again.successful).toBe(true);
    expect(again.healthy).toBe(true);
    expect(callsRun() - before).toBe(3);
  });
});
