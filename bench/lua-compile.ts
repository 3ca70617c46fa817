// Compile-once against recompile-every-call for the same Lua script, on the same LuaRuntime path the
// server uses. LuaRuntime has no switch to turn its compile cache off (it caches chunks per state,
// keyed by the script text), so "recompile every call" — what Karmada's luavm does with DoString — is
// measured by defeating the cache: a unique trailing comment per call makes every script text new.
// Each variant runs in a child process of its own (see compileOnceVersusEveryCall).
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { AggregatedStatusItem, KObject } from '../src/interpreter/types.ts';

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

/**
 * µs per call in steady state: after 1.5 s of warm-up (V8 needs thousands of calls to optimise
 * fengari's VM loop; a server gets them in its first seconds), the median of 15 blocks, so a busy
 * neighbour hits a block or two, not the result.
 */
async function medianBlock(calls: number, call: (i: number) => Promise<unknown>): Promise<number> {
  const BLOCKS = 15;
  const WARM_UP_MS = 1500;
  const perBlock = Math.max(1, Math.round(calls / BLOCKS));
  const warmUntil = performance.now() + WARM_UP_MS;
  for (let i = -1; performance.now() < warmUntil; i--) await call(i);
  const blocks: number[] = [];
  let next = 0;
  for (let b = 0; b < BLOCKS; b++) {
    const started = performance.now();
    for (let i = 0; i < perBlock; i++) await call(next++);
    blocks.push(((performance.now() - started) * 1000) / perBlock);
  }
  return blocks.sort((a, b) => a - b)[Math.floor(BLOCKS / 2)]!;
}

type Variant = 'cached' | 'recompiled';

interface Job {
  variant: Variant;
  object: KObject;
  items: AggregatedStatusItem[];
  calls: number;
}

/** One variant in this process, as a server doing only that would run it. */
async function measureHere({ variant, object, items, calls }: Job): Promise<number> {
  const { LuaRuntime } = (await import(join(process.cwd(), 'dist/src/lua/runtime.js'))) as typeof import('../src/lua/runtime.ts');
  const script = benchScript('statusAggregation');
  const runtime = new LuaRuntime({ poolSize: 1 });
  try {
    const usPerCall = await medianBlock(calls, (i) => runtime.aggregateStatus(variant === 'cached' ? script : `${script}\n-- call ${i}\n`, object, items));
    const { cacheHits } = runtime.stats();
    if (variant === 'recompiled' && cacheHits !== 0) throw new Error(`the recompile pass hit the compile cache ${cacheHits} times`);
    return usPerCall;
  } finally {
    runtime.close();
  }
}

function inChild(job: Job): Promise<number> {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (answer: { usPerCall?: number; error?: string }) => (answer.usPerCall !== undefined ? resolve(answer.usPerCall) : reject(new Error(answer.error))));
    child.once('exit', (code) => reject(new Error(`the Lua compile measurement exited with ${code}`)));
    child.send(job);
  });
}

/**
 * Each variant in a fresh child process of its own: the benchmark process is full of the load
 * generator's garbage, and alternating the two in one process charged the compiler's garbage and
 * cache misses to the cached calls (about 2× their cost alone).
 */
export async function compileOnceVersusEveryCall(label: string, object: KObject, items: AggregatedStatusItem[], calls: number): Promise<CompileResult> {
  // Two children per variant, alternating, and the faster of each pair: this VM's speed drifts by
  // tens of percent over seconds, and a slow stretch only ever makes a variant look slower.
  let cachedUsPerCall = Infinity;
  let recompileUsPerCall = Infinity;
  for (let round = 0; round < 2; round++) {
    cachedUsPerCall = Math.min(cachedUsPerCall, await inChild({ variant: 'cached', object, items, calls }));
    recompileUsPerCall = Math.min(recompileUsPerCall, await inChild({ variant: 'recompiled', object, items, calls }));
  }
  return { label, calls, cachedUsPerCall, recompileUsPerCall, speedup: recompileUsPerCall / cachedUsPerCall };
}

if (process.argv[2] === '--child' && process.send) {
  process.once('message', (job: Job) => {
    measureHere(job).then(
      (usPerCall) => process.send!({ usPerCall }, () => process.exit(0)),
      (error: Error) => process.send!({ error: error.stack ?? error.message }, () => process.exit(1)),
    );
  });
}
