// Formatting the benchmark's findings: the machine, one table per section, targets met or missed.
import { cpus, totalmem } from 'node:os';
import type { CompileResult } from './lua-compile.ts';
import type { LoadResult } from './load.ts';
import type { LoopStalls } from './stalls.ts';
import type { StartupResult } from './startup.ts';

export interface Measured extends LoadResult {
  peakRssMb: number;
  cpuCores: number;
  generatorCpuCores: number;
}

/** An evenly spaced pass at `rate`, with the longest event-loop stalls seen meanwhile (the server's when it has /metrics). */
export type PacedRate = LoadResult & { rate: number; generatorStalls: LoopStalls; serverStalls?: LoopStalls };

export interface CaseRow {
  id: string;
  target: string;
  operation: string;
  requestBytes: number;
  responseBytes: number;
  ours: Measured;
  baseline?: Measured;
  pacedRate?: PacedRate;
  /** The bare baseline, evenly spaced at the same rate as pacedRate: the machine's own tail. */
  baselinePacedRate?: PacedRate;
  lua?: Measured;
  luaPacedRate?: PacedRate;
}

export interface Findings {
  startedAt: Date;
  finishedAt: Date;
  loadBefore: number[];
  loadAfter: number[];
  settings: { connections: number; durationSeconds: number; warmupSeconds: number };
  rows: CaseRow[];
  inProcess: Array<{ id: string; child: Measured; inProcess: Measured }>;
  cluster: Array<{ id: string; one: Measured; two: Measured }>;
  compile: CompileResult[];
  startup: Array<StartupResult & { label: string }>;
  peakRssMb: { typescript: number; lua: number };
  conditions: string;
}

export function machine(): string {
  const cpu = cpus();
  return `${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory; Node ${process.version} (${process.platform} ${process.arch})`;
}

const f0 = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const f1 = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n.toFixed(1) : '–');
const f2 = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n.toFixed(2) : '–');
const kb = (n: number) => `${(n / 1024).toFixed(1)}`;
const mark = (ok: boolean) => (ok ? 'met' : '**missed**');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function targets(f: Findings): string[] {
  const small = f.rows.filter((r) => r.baseline && !r.id.includes('clusters'));
  const tsRatios = small.map((r) => r.ours.requestsPerSecond / r.baseline!.requestsPerSecond);
  const luaRows = f.rows.filter((r) => r.lua);
  const luaRatios = luaRows.map((r) => r.lua!.requestsPerSecond / r.ours.requestsPerSecond);
  const spaced = f.rows.flatMap((r) => [r.pacedRate, r.luaPacedRate]).filter((x): x is PacedRate => Boolean(x));
  const worstSpacedP99 = Math.max(...spaced.map((x) => x.p99Ms));
  const worstBaselineP99 = Math.max(...f.rows.flatMap((r) => (r.baselinePacedRate ? [r.baselinePacedRate.p99Ms] : [])));
  const minSpeedup = Math.min(...f.compile.map((c) => c.speedup));
  const peak = Math.max(f.peakRssMb.typescript, f.peakRssMb.lua);
  const ready = Math.max(...f.startup.map((s) => s.readyMs));
  const worstOf = (prefix: string) => f0(Math.max(...f.startup.filter((s) => s.label.startsWith(prefix)).map((s) => s.readyMs)));
  return [
    `| TypeScript ≥ 0.8× baseline throughput, small requests | min ${f2(Math.min(...tsRatios))}×, median ${f2(median(tsRatios))}× over ${tsRatios.length} cases | ${mark(Math.min(...tsRatios) >= 0.8)} |`,
    `| Lua ≥ 0.5× TypeScript, same kind and operation | min ${f2(Math.min(...luaRatios))}×, median ${f2(median(luaRatios))}× over ${luaRatios.length} cases | ${mark(Math.min(...luaRatios) >= 0.5)} |`,
    `| compiled-once Lua ≥ 5× faster than recompile-every-call | min ${f1(minSpeedup)}× | ${mark(minSpeedup >= 5)} |`,
    `| p99 < 10 ms at half the saturation throughput (evenly spaced requests) | worst ${f2(worstSpacedP99)} ms over ${spaced.length} passes (the bare baseline at the same rates: worst ${f2(worstBaselineP99)} ms) | ${mark(worstSpacedP99 < 10)} |`,
    `| RSS < 200 MB throughout | peak ${f1(peak)} MB (TypeScript server ${f1(f.peakRssMb.typescript)}, Lua server ${f1(f.peakRssMb.lua)}) | ${mark(peak < 200)} |`,
    `| ready in < 1 s | worst ${f0(ready)} ms of ${f.startup.length} starts (first start generating the self-signed set: worst ${worstOf('first start')} ms; restart with the kept set: ${worstOf('restart')} ms; certificate files: ${worstOf('certificate files')} ms) | ${mark(ready < 1000)} |`,
  ];
}

/**
 * Server CPU per answered request (CPU cores / req/s), which does not depend on whether the server or
 * the load generator was the limit of a pass: the cost the throughput ratio comes from.
 */
function cpuPerRequest(f: Findings): string {
  const us = (m: Measured) => (m.cpuCores / m.requestsPerSecond) * 1e6;
  const small = f.rows.filter((r) => r.baseline && !r.id.includes('clusters'));
  const ours = small.map((r) => us(r.ours));
  const base = small.map((r) => us(r.baseline!));
  const lua = f.rows.filter((r) => r.lua).map((r) => us(r.lua!));
  const luaPart = lua.length ? `; Lua customizations (CloneSet) median ${f0(median(lua))} µs` : '';
  return `Server CPU per request, small requests: ours median ${f0(median(ours))} µs (${f0(Math.min(...ours))}-${f0(Math.max(...ours))}), baseline median ${f0(median(base))} µs (${f0(Math.min(...base))}-${f0(Math.max(...base))})${luaPart}.`;
}

/** "p99 (rate asked; rate sent)". */
function halfRateCell(spaced: PacedRate | undefined): string {
  return spaced ? `${f2(spaced.p99Ms)} (${f0(spaced.rate)}/s asked; ${f0(spaced.requestsPerSecond)} sent)` : '–';
}

export function markdown(f: Findings): string {
  const s = f.settings;
  const lines: string[] = [];
  lines.push('# Benchmark results', '');
  lines.push(`Produced by \`npm run bench\` (bench/run.ts) on ${f.startedAt.toISOString()} in ${((f.finishedAt.getTime() - f.startedAt.getTime()) / 1000).toFixed(0)} s.`, '');
  lines.push(`- Machine: ${machine()}.`);
  lines.push(`- Load average (1, 5, 15 min) before: ${f.loadBefore.map((x) => x.toFixed(2)).join(', ')}; after: ${f.loadAfter.map((x) => x.toFixed(2)).join(', ')}.`);
  lines.push(`- Conditions: ${f.conditions}`);
  lines.push(`- Load: autocannon 8 in the benchmark process, HTTPS keep-alive, ${s.connections} connections, no pipelining, ${s.warmupSeconds} s warm-up then ${s.durationSeconds} s per pass; the server under test is a separate process (\`node dist/src/cli.js serve\`, info logs to a file), so on 2 cores the load generator and the server each have one.`);
  lines.push('- Baseline: a bare `node:https` server (same certificate, same keep-alive) that reads the body, `JSON.parse`s it and answers a fixed JSON of the same size as our answer; measured right before ours for every case, so each ratio comes from adjacent passes.');
  lines.push('- "srv CPU" is the server process\'s CPU use during the pass (1.00 = one core busy): near 1 the server is the limit; "gen CPU" is the same for the load generator (the benchmark process).');
  lines.push('- p99 at ½ rate: half the saturation throughput of that case, one request every 1/rate s over keep-alive connections, latency counted from the moment a request was due (bench/paced.ts).', '');

  lines.push('## Targets', '', '| target | measured | |', '|---|---|---|', ...targets(f), '');
  lines.push(cpuPerRequest(f), '');

  lines.push('## TypeScript modules against the baseline (saturation)', '');
  lines.push('| case | request KiB | answer B | req/s | p50 ms | p99 ms | peak RSS MB | srv CPU | gen CPU | baseline req/s | baseline srv CPU | baseline gen CPU | ratio | p99 ms at ½ rate |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of f.rows) {
    const b = r.baseline;
    const half = halfRateCell(r.pacedRate);
    lines.push(`| ${r.target} ${r.operation} | ${kb(r.requestBytes)} | ${r.responseBytes} | ${f0(r.ours.requestsPerSecond)} | ${f2(r.ours.p50Ms)} | ${f2(r.ours.p99Ms)} | ${f1(r.ours.peakRssMb)} | ${f2(r.ours.cpuCores)} | ${f2(r.ours.generatorCpuCores)} | ${b ? f0(b.requestsPerSecond) : '–'} | ${b ? f2(b.cpuCores) : '–'} | ${b ? f2(b.generatorCpuCores) : '–'} | ${b ? f2(r.ours.requestsPerSecond / b.requestsPerSecond) : '–'} | ${half} |`);
  }
  lines.push('');

  lines.push('## Lua customizations against our TypeScript module (same kind, operation and request)', '');
  lines.push('CloneSet served by `bench/customizations/cloneset.yaml` (Karmada-style scripts; a user customization takes precedence over the TypeScript module), in its own server process.', '');
  lines.push('| case | TypeScript req/s | Lua req/s | Lua / TypeScript | Lua p50 ms | Lua p99 ms | Lua peak RSS MB | Lua srv CPU | Lua p99 ms at ½ rate |');
  lines.push('|---|---|---|---|---|---|---|---|---|');
  for (const r of f.rows.filter((x) => x.lua)) {
    const l = r.lua!;
    const half = halfRateCell(r.luaPacedRate);
    lines.push(`| ${r.target} ${r.operation} | ${f0(r.ours.requestsPerSecond)} | ${f0(l.requestsPerSecond)} | ${f2(l.requestsPerSecond / r.ours.requestsPerSecond)} | ${f2(l.p50Ms)} | ${f2(l.p99Ms)} | ${f1(l.peakRssMb)} | ${f2(l.cpuCores)} | ${half} |`);
  }
  lines.push('');

  lines.push('## Latency tails at half rate: where the wait was', '');
  lines.push('Evenly spaced passes (latency from the moment each request was due). "stall" is how late the event loop ran a timer during the pass, beyond the timer\'s own period: the server\'s from its `/metrics` (prom-client\'s monitor, 10 ms period), the load generator\'s from `monitorEventLoopDelay` (1 ms); a stall is GC, a long task, or the process waiting for a core. The baseline row is the bare `node:https` server at the same rate: the tail this machine gives any Node server.', '');
  lines.push('| case | server | rate/s | p50 ms | p99 ms | max ms | server stall p99 / max ms | generator stall p99 / max ms |', '|---|---|---|---|---|---|---|---|');
  for (const r of f.rows) {
    for (const [server, x] of [['ours (TypeScript)', r.pacedRate], ['baseline', r.baselinePacedRate], ['ours (Lua)', r.luaPacedRate]] as const) {
      if (!x) continue;
      const stalls = (st: LoopStalls | undefined) => (st ? `${f1(st.p99Ms)} / ${f1(st.maxMs)}` : '–');
      lines.push(`| ${r.target} ${r.operation} | ${server} | ${f0(x.rate)} | ${f2(x.p50Ms)} | ${f2(x.p99Ms)} | ${f2(x.maxMs)} | ${stalls(x.serverStalls)} | ${stalls(x.generatorStalls)} |`);
    }
  }
  lines.push('');

  lines.push('## Lua: compiled once against recompiled every call', '');
  lines.push('Same script (the CloneSet `AggregateStatus` above), same `LuaRuntime` call path as the server, each variant in a fresh child process of its own (as a server doing only that would run it). `LuaRuntime` has no switch to disable its compile cache, so recompile-every-call (what Karmada\'s luavm does) is forced by appending a unique comment to the script on every call. µs per call is the wall time of the median of 15 blocks after 1.5 s of warm-up, the better of two children per variant run alternately. The difference is what compiling costs per call: the speed-up can only be large where the script\'s own work is small against it.', '');
  lines.push('| input | calls | compiled once µs/call | recompiled µs/call | compile µs (difference) | speed-up |', '|---|---|---|---|---|---|');
  for (const c of f.compile) lines.push(`| ${c.label} | ${c.calls} | ${f1(c.cachedUsPerCall)} | ${f1(c.recompileUsPerCall)} | ${f1(c.recompileUsPerCall - c.cachedUsPerCall)} | ${f1(c.speedup)}× |`);
  lines.push('');

  if (f.inProcess.length > 0) {
    lines.push('## Server in a child process against inside the load generator\'s process', '');
    lines.push('| case | child req/s | child p99 ms | in-process req/s | in-process p99 ms |', '|---|---|---|---|---|');
    for (const x of f.inProcess) lines.push(`| ${x.id} | ${f0(x.child.requestsPerSecond)} | ${f2(x.child.p99Ms)} | ${f0(x.inProcess.requestsPerSecond)} | ${f2(x.inProcess.p99Ms)} |`);
    lines.push('');
  }
  if (f.cluster.length > 0) {
    lines.push('## One server process against two (node:cluster) on this machine', '');
    lines.push('| case | 1 process req/s | p99 ms | CPU | 2 processes req/s | p99 ms | CPU (sum) | RSS MB (sum) |', '|---|---|---|---|---|---|---|---|');
    for (const x of f.cluster) lines.push(`| ${x.id} | ${f0(x.one.requestsPerSecond)} | ${f2(x.one.p99Ms)} | ${f2(x.one.cpuCores)} | ${f0(x.two.requestsPerSecond)} | ${f2(x.two.p99Ms)} | ${f2(x.two.cpuCores)} | ${f1(x.two.peakRssMb)} |`);
    lines.push('');
  }
  lines.push('## Start-up to ready', '');
  lines.push('`node dist/src/cli.js serve --port 0`, from spawn until `/readyz` answers 200; "logged" is what the server reports itself (from its process start to listening; the rest is process creation and the first probe).', '');
  lines.push('| start | spawn → /readyz 200 ms | logged by the server ms |', '|---|---|---|');
  f.startup.forEach((x) => lines.push(`| ${x.label} | ${f0(x.readyMs)} | ${f0(x.loggedReadyMs)} |`));
  lines.push('');
  return lines.join('\n');
}
