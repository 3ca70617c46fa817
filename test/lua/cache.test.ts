// Compile-once cache, pooled states and compile checks.
import { describe, expect, it } from 'vitest';
import { LuaRuntime, LuaScriptError } from '../../src/lua/runtime.ts';
import { workload } from './helpers.ts';

const healthy = `function InterpretHealth(obj) return obj.status.readyReplicas >= 2 end`;

describe('compile cache and pool', () => {
  it('compiles a script once and reuses the compiled chunk', async () => {
    const rt = new LuaRuntime();
    for (let i = 0; i < 5; i++) expect(await rt.call('InterpretHealth', healthy, [workload()])).toBe(true);
    expect(rt.stats()).toEqual({ cacheHits: 4, cacheMisses: 1, poolSize: 1, statesInUse: 0 });
    await rt.call('InterpretHealth', `${healthy} `, [workload()]);
    expect(rt.stats().cacheMisses).toBe(2);
    rt.close();
  });

  it('replaces a state that hit a limit and keeps at most poolSize idle states', async () => {
    const rt = new LuaRuntime({ poolSize: 1 });
    await expect(rt.call('InterpretHealth', `function InterpretHealth(o) while true do end end`, [workload()], { timeoutMs: 50 })).rejects.toThrow(/timed out/);
    expect(rt.stats().poolSize).toBe(0);
    expect(await rt.call('InterpretHealth', healthy, [workload()])).toBe(true);
    expect(rt.stats()).toMatchObject({ poolSize: 1, statesInUse: 0 });
    rt.close();
    await expect(rt.call('InterpretHealth', healthy, [workload()])).rejects.toThrow(/closed/);
  });

  it('reports missing or non-function entry points like Karmada', async () => {
    const rt = new LuaRuntime();
    await expect(rt.call('InterpretHealth', `function Other() end`, [workload()])).rejects.toThrow('not found function InterpretHealth');
    await expect(rt.call('InterpretHealth', `InterpretHealth = 1`, [workload()])).rejects.toThrow('InterpretHealth is not a function: number');
    rt.close();
  });
});

describe('compileCheck', () => {
  it('accepts valid scripts without running them', () => {
    const rt = new LuaRuntime();
    expect(() => rt.compileCheck(`while true do end`)).not.toThrow();
    rt.close();
  });

  it('throws LuaScriptError with the line for syntax errors', () => {
    const rt = new LuaRuntime();
    let err: unknown;
    try {
      rt.compileCheck(`function InterpretHealth(obj)\n  return obj.status ==\nend`);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LuaScriptError);
    expect((err as LuaScriptError).line).toBe(3);
    expect((err as LuaScriptError).luaMessage).toMatch(/unexpected symbol near 'end'/);
    rt.close();
  });

  it('reports compile errors from a call with the function name', async () => {
    const rt = new LuaRuntime();
    const err = await rt.call('InterpretHealth', `function InterpretHealth(obj) return ( end`, [workload()]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LuaScriptError);
    expect((err as LuaScriptError).functionName).toBe('InterpretHealth');
    expect((err as LuaScriptError).line).toBe(1);
    rt.close();
  });
});
