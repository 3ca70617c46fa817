// Compile-once against recompile-every-call for the same Lua script, on the same LuaRuntime path the
// server uses. LuaRuntime has no switch to turn its compile cache off (it caches chunks per state,
// keyed by the script text), so "recompile every call" — what Karmada's luavm does with DoString — is
// measured by defeating the cache: a unique trailing comment per call makes every script text new.
// The recompiling runtime is created for this measurement and closed after (its cache keeps the 512
// most recently used chunks per state).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { AggregatedStatusItem, KObject } from '../src/interpreter/types.js';

export interface CompileResult {
  label: string;
  calls: number;
  cachedUsPerCall: number;
  recompileUsPerCall: number;
  speedup: number;
}

function benchScript(field: string): string {
  const ric = parse(readFileSync('bench/customizations/cloneset.yaml', 'utf8')) as { spec: { customizations: Record<string, { luaScript: string }> } };
  return ric.spec.customizations[field]!.luaScript;
}

/** CPU µs per call (this process's CPU time, so other load on a shared machine skews it less than wall time). */
async function timeCalls(calls: number, call: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(100, calls); i++) await call(-1 - i); // warm up the JIT
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call(i);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / calls;
}

export async function compileOnceVersusEveryCall(label: string, object: KObject, items: AggregatedStatusItem[], calls: number): Promise<CompileResult> {
  const { LuaRuntime } = (await import(join(process.cwd(), 'dist/src/lua/runtime.js'))) as typeof import('../src/lua/runtime.js');
  const script = benchScript('statusAggregation');
  const cachedRuntime = new LuaRuntime({ poolSize: 1 });
  const cachedUsPerCall = await timeCalls(calls, () => cachedRuntime.aggregateStatus(script, object, items));
  cachedRuntime.close();
  const recompilingRuntime = new LuaRuntime({ poolSize: 1 });
  const recompileUsPerCall = await timeCalls(calls, (i) => recompilingRuntime.aggregateStatus(`${script}\n-- call ${i}\n`, object, items));
  const stats = recompilingRuntime.stats();
  recompilingRuntime.close();
  if (stats.cacheHits !== 0) throw new Error(`the recompile pass hit the compile cache ${stats.cacheHits} times`);
  return { label, calls, cachedUsPerCall, recompileUsPerCall, speedup: recompileUsPerCall / cachedUsPerCall };
}
