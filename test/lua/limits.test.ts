// Per-call limits: deadline enforced inside the VM, runaway recursion and memory growth stopped,
// and the runtime keeps serving afterwards.
import { afterAll, describe, expect, it } from 'vitest';
import { LuaRuntime, LuaScriptError } from '../../src/lua/runtime.ts';
import { reflectScript, workload } from './helpers.ts';

const rt = new LuaRuntime({ timeoutMs: 1000, memoryLimitMb: 64 });
afterAll(() => rt.close());

async function failure(promise: Promise<unknown>): Promise<LuaScriptError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LuaScriptError);
  return err as LuaScriptError;
}

const healthy = `function InterpretHealth(obj) return obj.status.readyReplicas == obj.status.replicas end`;

describe('deadline', () => {
  it('stops an endless loop, says it timed out, and points at the line', async () => {
    const started = performance.now();
    const err = await failure(
      rt.call('InterpretHealth', `function InterpretHealth(obj)\n  local i = 0\n  while true do i = i + 1 end\nend`, [workload()], { timeoutMs: 150 }),
    );
    const elapsed = performance.now() - started;
    expect(err.timeout).toBe(true);
    expect(err.message).toMatch(/timed out after 150ms/);
    expect(err.functionName).toBe('InterpretHealth');
    expect(err.line).toBe(3);
    expect(elapsed).toBeGreaterThanOrEqual(140); // never before its deadline
  });

  it('uses the runtime default (Karmada: 1 s) when the call sets none', async () => {
    const started = performance.now();
    const err = await failure(rt.call('InterpretStatus', reflectScript('while true do end'), [workload()]));
    expect(err.timeout).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
  });

  it('serves the calls issued after a runaway one once it is stopped, on a sound state', async () => {
    const runaway = failure(rt.call('InterpretHealth', `function InterpretHealth(o) while true do end end`, [workload()], { timeoutMs: 200 }));
    const others = Array.from({ length: 5 }, () => rt.call('InterpretHealth', healthy, [workload({ status: { replicas: 2, readyReplicas: 2 } })]));
    const [err, ...results] = await Promise.all([runaway, ...others]);
    expect(err.timeout).toBe(true);
    expect(results).toEqual([true, true, true, true, true]);
    expect(rt.stats().statesInUse).toBe(0);
  });

  it('stops an endless loop inside pcall (the deadline error is not swallowed for good)', async () => {
    const err = await failure(
      rt.call('InterpretHealth', `function InterpretHealth(o) while true do pcall(function() while true do end end) end end`, [workload()], { timeoutMs: 150 }),
    );
    expect(err.timeout).toBe(true);
  });
});

describe('runaway recursion and memory', () => {
  it('stops unbounded recursion with a stack overflow error', async () => {
    const err = await failure(
      rt.call('InterpretHealth', `function InterpretHealth(o) local function f(n) return 1 + f(n + 1) end return f(1) == 0 end`, [workload()]),
    );
    expect(err.timeout).toBe(false);
    expect(err.luaMessage).toMatch(/stack overflow/);
  });

  it('still allows legitimate recursion a thousand frames deep', async () => {
    const out = await rt.call(
      'InterpretStatus',
      `local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
      function ReflectStatus(o) return { d = depth(1000) } end`,
      [workload()],
    );
    expect(out).toEqual({ d: 1000 });
  });

  it('stops a string that doubles forever before it exhausts memory', async () => {
    const err = await failure(
      rt.call('InterpretHealth', `function InterpretHealth(o) local s = o.metadata.name .. o.metadata.name while true do s = s .. s end end`, [workload()]),
    );
    expect(err.luaMessage).toMatch(/memory limit exceeded/);
  });

  it('stops a table that grows forever (memory or deadline, whichever comes first)', async () => {
    const err = await failure(
      rt.call('InterpretHealth', `function InterpretHealth(o) local t = {} local i = 0 while true do i = i + 1 t[i] = { i, o.metadata.name .. i } end end`, [
        workload(),
      ]),
    );
    expect(err.luaMessage).toMatch(/memory limit exceeded|timed out/);
  });

  it('fails cleanly on a result nested too deeply to encode', async () => {
    const err = await failure(rt.call('InterpretStatus', reflectScript(`local t = {} for i = 1, 20000 do t = { t } end return { x = t }`), [workload()]));
    expect(err.functionName).toBe('ReflectStatus');
  });

  it('keeps serving correct results after all of the above', async () => {
    expect(await rt.call('InterpretHealth', healthy, [workload({ status: { replicas: 2, readyReplicas: 1 } })])).toBe(false);
    expect(await rt.call('InterpretStatus', reflectScript(`return { replicas = observedObj.status.replicas }`), [workload()])).toEqual({ replicas: 3 });
  });
});
