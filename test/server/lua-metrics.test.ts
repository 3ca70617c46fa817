import { describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/interpreter/setup.ts';
import { LuaMetrics } from '../../src/server/lua-metrics.ts';
import { Metrics } from '../../src/server/metrics.ts';

describe('Lua metrics', () => {
  it('reads runtime and loader state at scrape time and counts reloads', async () => {
    const loaded = await createRegistry();
    try {
      const metrics = new Metrics({ defaultMetrics: false });
      const lua = new LuaMetrics(metrics, loaded);
      const text = async () => metrics.registry.metrics();
      const value = async (name: string) => Number(new RegExp(`^karmada_interpreter_${name} (\\d+)$`, 'm').exec(await text())?.[1]);
      const lookups = async () => (await value('lua_compile_cache_hits')) + (await value('lua_compile_cache_misses'));
      const before = await lookups();
      expect(before).toBeGreaterThanOrEqual(0);
      expect(await text()).toMatch(/karmada_interpreter_lua_states_in_use 0/);
      expect(await text()).toMatch(new RegExp(`karmada_interpreter_lua_customization_targets\\{origin="builtin"\\} ${loaded.builtinLua.summary.targets}`));
      expect(loaded.builtinLua.summary.targets).toBeGreaterThan(0);
      const rollout = loaded.registry.resolve('argoproj.io/v1alpha1', 'Rollout', 'InterpretHealth')!;
      await rollout.interpreter.interpretHealth!({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name: 'r', generation: 1 }, spec: {}, status: {} });
      expect(await lookups()).toBe(before + 1);
      expect(await text()).toMatch(/karmada_interpreter_lua_pool_idle_states [1-9]/);
      lua.recordReload(false, 2);
      expect(await text()).toMatch(/karmada_interpreter_lua_customization_reloads_total\{result="rejected"\} 1/);
      expect(await text()).toMatch(/karmada_interpreter_lua_customization_load_errors 2/);
    } finally {
      loaded.close();
    }
  });
});
