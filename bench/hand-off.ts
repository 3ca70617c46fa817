// A Lua call handed off to a worker thread or to a child process, against the same call in-process:
// CPU per call of the whole process tree, p50/p99 latency and memory, sequential and 8 in flight on two
// callees, plus the start-up and restart of one callee; all variants in one run, interleaved (decision
// 0011). Self-contained: bare hand-offs, not src/isolation/ itself (whose threads, since decision 0012,
// likewise sleep between calls and exchange one message each way).
//
//   node bench/hand-off.ts [rounds] [calls]   the measurement (default 8 rounds of 3,000 calls a phase)
//   node bench/hand-off.ts --oom              one huge allocation in a worker thread ends the process;
//                                             in a child process it ends only the child
//
// Each variant runs in a fresh host process (one at a time), so CPU and memory are that variant's alone.
// A callee loads the Lua runtime, answers each call (JSON text both ways) and sleeps in its event loop
// until the next; a host hands a call to the first idle callee and queues the rest, as the pool does.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { parse } from 'yaml';
import { LuaRuntime } from '../src/lua/runtime.ts';

type Mode = 'in-process' | 'thread' | 'fork-json' | 'fork-advanced';
type Op = 'health' | 'aggregate-50';
const MODES: Mode[] = ['in-process', 'thread', 'fork-json', 'fork-advanced'];
/** Sequential calls (one Karmada client), then 8 in flight on 2 callees. */
const PHASES = (['health', 'aggregate-50'] as const).flatMap((op) => [1, 8].map((inFlight) => [op, inFlight] as const));
const SELF = fileURLToPath(import.meta.url);
const WARMUP = 300;
const HEALTH_FIXTURE = 'test/fixtures/apps.kruise.io/CloneSet/InterpretHealth-partition-held.json';
const RESTARTS = 3;
// The pool's limits for a 128 MiB call budget (worker-pool.ts); a child gets the same heap limit.
const LIMITS = { maxOldGenerationSizeMb: 320, maxYoungGenerationSizeMb: 32, stackSizeMb: 8 };
const CHILD_FLAGS = ['--max-old-space-size=320', '--max-semi-space-size=16', '--stack-size=8000'];

const spec = (parse(readFileSync(new URL('customizations/cloneset.yaml', import.meta.url), 'utf8')) as any).spec.customizations;
// Untyped: it is called with a method per operation, or with call(operation, …) where it has none.
const runtime: any = new LuaRuntime({ poolSize: 1 });
/** The Lua call itself, as every variant's callee runs it. */
function lua(op: Op, args: unknown[]): Promise<unknown> {
  const [operation, script] = op === 'health' ? ['InterpretHealth', spec.healthInterpretation] : ['AggregateStatus', spec.statusAggregation];
  const method = operation === 'InterpretHealth' ? 'interpretHealth' : 'aggregateStatus';
  return runtime[method] ? runtime[method](script.luaScript, ...args) : runtime.call(operation, script.luaScript, args);
}

/** A callee's side: `{ id, op, args }` in, `{ id, result }` out, both JSON text. */
function serve(port: { on(event: 'message', listener: (text: string) => void): unknown }, send: (text: string) => void): void {
  port.on('message', (text: string) => {
    const { id, op, args } = JSON.parse(text) as { id: number; op: Op | 'oom'; args: unknown[] };
    // The premise: one allocation larger than the heap limit (a 480 MB array of doubles).
    if (op === 'oom') send(JSON.stringify({ id, result: new Array(6e7).fill(0.5).length }));
    else
      void lua(op, args).then(
        (result) => send(JSON.stringify({ id, result })),
        (error) => send(JSON.stringify({ id, error: String(error) })),
      );
  });
  send('ready');
}

interface Callee {
  pid: number;
  send(text: string): void;
  stop(): Promise<unknown>;
  /** Resolves once the callee has loaded the runtime. */
  ready: Promise<void>;
  exited: Promise<string>;
}

function startCallee(mode: Mode, onAnswer: (text: string) => void): Callee {
  let ready!: () => void;
  const readyPromise = new Promise<void>((resolve) => (ready = resolve));
  const onMessage = (text: string) => (text === 'ready' ? ready() : onAnswer(text));
  if (mode === 'thread') {
    const worker = new Worker(new URL(import.meta.url), { resourceLimits: LIMITS });
    worker.on('message', onMessage);
    const exited = new Promise<string>((resolve) => worker.once('exit', (code) => resolve(`exit code ${code}`)));
    return { pid: process.pid, send: (t) => worker.postMessage(t), stop: () => worker.terminate(), ready: readyPromise, exited };
  }
  const serialization = mode === 'fork-advanced' ? 'advanced' : 'json';
  const child: ChildProcess = fork(SELF, ['callee'], { serialization, execArgv: CHILD_FLAGS });
  child.on('message', (m) => onMessage(m as string));
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `exit code ${code}`)));
  const stop = () => (child.kill(), exited);
  return { pid: child.pid!, send: (t) => child.send(t), stop, ready: readyPromise, exited };
}

/** At most one call in flight per callee; the rest wait in order (worker-pool.ts `dispatch`). */
class Pool {
  readonly callees: Callee[] = [];
  private readonly busy = new Map<Callee, (text: string) => void>();
  private readonly queue: [string, (text: string) => void][] = [];
  private readonly mode: Mode;
  constructor(mode: Mode) {
    this.mode = mode;
  }
  add(): Callee {
    const callee: Callee = startCallee(this.mode, (text) => {
      const resolve = this.busy.get(callee)!;
      this.busy.delete(callee);
      const next = this.queue.shift();
      if (next) this.assign(callee, ...next);
      resolve(text);
    });
    this.callees.push(callee);
    return callee;
  }
  call(text: string): Promise<string> {
    return new Promise((resolve) => {
      const idle = this.callees.find((c) => !this.busy.has(c));
      if (idle) this.assign(idle, text, resolve);
      else this.queue.push([text, resolve]);
    });
  }
  private assign(callee: Callee, text: string, resolve: (text: string) => void): void {
    this.busy.set(callee, resolve);
    callee.send(text);
  }
}

/** CPU of this process (all its threads) and of the given children, in µs. */
function treeCpuUs(pids: number[]): number {
  const own = process.cpuUsage();
  let total = own.user + own.system;
  for (const pid of pids) {
    if (pid === process.pid) continue;
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    total += (Number(fields[11]) + Number(fields[12])) * 10_000; // utime + stime, 100 ticks a second
  }
  return total;
}

/** Busy CPU of the whole machine (every process), in µs: to tell how much else ran during a phase. */
function machineBusyUs(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) * 10_000;
}

/**
 * Memory of the tree, in MiB: resident (RSS: counts the node binary's pages once per process) and
 * anonymous (heaps, code, malloc: what each further process adds; file pages are shared and charged once).
 */
function treeMemoryMb(pids: number[]): { rss: number; anon: number } {
  let rss = 0;
  let anon = 0;
  for (const pid of new Set([process.pid, ...pids])) {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    rss += Number(/^Rss:\s+(\d+)/m.exec(text)![1]) / 1024;
    anon += Number(/^Anonymous:\s+(\d+)/m.exec(text)![1]) / 1024;
  }
  return { rss, anon };
}

const quantile = (sorted: Float64Array, q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function drive(call: () => Promise<unknown>, inFlight: number, count: number, latencies?: Float64Array): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const start = performance.now();
      await call();
      if (latencies) latencies[i] = performance.now() - start;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
}

function answer(text: string): unknown {
  const { result, error } = JSON.parse(text) as { result: unknown; error?: string };
  if (error) throw new Error(error);
  return result;
}

/** One variant in this (fresh) process: start-up, the four phases, restarts. */
async function host(mode: Mode, calls: number): Promise<Record<string, unknown>> {
  const { largeAggregateCase } = await import('./cases.ts');
  const large = (JSON.parse(largeAggregateCase().body) as any).request;
  const observed = (JSON.parse(readFileSync(HEALTH_FIXTURE, 'utf8')) as any).request.request.object;
  const inputs: Record<Op, unknown[]> = { health: [observed], 'aggregate-50': [large.object, large.aggregatedStatus] };
  const pool = new Pool(mode);
  const pids = () => pool.callees.map((c) => c.pid);
  const out: Record<string, unknown> = { mode };
  if (mode !== 'in-process') {
    const starts = [];
    for (let i = 0; i < 2; i++) {
      const [t, cpu] = [performance.now(), treeCpuUs(pids())];
      await pool.add().ready;
      starts.push({ ms: performance.now() - t, cpuMs: (treeCpuUs(pids()) - cpu) / 1000 });
    }
    out.start = starts;
  }
  let id = 0;
  for (const [op, inFlight] of PHASES) {
    const call = mode === 'in-process' ? () => lua(op, inputs[op]) : () => pool.call(JSON.stringify({ id: ++id, op, args: inputs[op] })).then(answer);
    await drive(call, inFlight, WARMUP);
    const latencies = new Float64Array(calls);
    const [t, cpu, busy] = [performance.now(), treeCpuUs(pids()), machineBusyUs()];
    await drive(call, inFlight, calls, latencies);
    const [ms, cpuUs] = [performance.now() - t, treeCpuUs(pids()) - cpu];
    const others = (machineBusyUs() - busy - cpuUs) / ms / 10; // % of one CPU used by other processes
    latencies.sort();
    const memory = treeMemoryMb(pids());
    out[`${op} ×${inFlight}`] = {
      cpuUs: cpuUs / calls,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      perS: (calls * 1000) / ms,
      others,
      ...memory,
    };
  }
  if (mode !== 'in-process') {
    const restarts = [];
    for (let i = 0; i < RESTARTS; i++) {
      const old = pool.callees.shift()!;
      const t = performance.now();
      const stopped = old.stop().then(() => performance.now() - t);
      await pool.add().ready; // replaced at once, as the pool does, without waiting for the exit
      restarts.push({ exitMs: await stopped, readyMs: performance.now() - t });
    }
    out.restart = restarts;
  }
  await Promise.all(pool.callees.map((c) => c.stop()));
  return out;
}

/** Runs a host for one variant (or the premise check) and returns its report and how it ended. */
function runHost(args: string[]): Promise<{ report?: any; end: string; lines: string[] }> {
  const child = fork(SELF, args, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const lines: string[] = [];
  let report: unknown;
  const keep = (pattern: RegExp) => (d: Buffer) =>
    lines.push(
      ...String(d)
        .split('\n')
        .filter((l) => pattern.test(l)),
    );
  child.stdout!.on('data', keep(/./));
  child.stderr!.on('data', keep(/FATAL|Error/));
  child.on('message', (m) => (report = m));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ report, end: signal ? `signal ${signal}` : `exit code ${code}`, lines })));
}

/** In a host: a callee of `mode` makes one huge allocation; the host says whether it is still running. */
async function oomHost(mode: Mode): Promise<void> {
  const pool = new Pool(mode);
  const callee = pool.add();
  await callee.ready;
  console.log(`host ${process.pid}: callee ready (${mode === 'thread' ? 'worker thread' : `child ${callee.pid}`}), sending the allocation`);
  void pool.call(JSON.stringify({ id: 1, op: 'oom', args: [] }));
  console.log(`host: callee ended with ${await callee.exited}`);
  pool.callees.shift();
  const replacement = pool.add();
  await replacement.ready;
  const observed = (JSON.parse(readFileSync(HEALTH_FIXTURE, 'utf8')) as any).request.request.object;
  const answer = await pool.call(JSON.stringify({ id: 2, op: 'health', args: [observed] }));
  console.log(`host: still running; a replacement callee answered the next call: ${answer}`);
  await replacement.stop();
}

/** Median over the rounds (min–max) of one figure; latencies in ms to the µs. */
function column(rows: any[], key: string): string {
  const xs = rows.map((row) => row[key] as number).sort((a, b) => a - b);
  const digits = key === 'p50' || key === 'p99' ? 3 : 0;
  return `${xs[Math.floor(xs.length / 2)]!.toFixed(digits)} (${xs[0]!.toFixed(digits)}–${xs.at(-1)!.toFixed(digits)})`;
}

async function main(): Promise<void> {
  if (process.argv[2] === '--oom') {
    for (const mode of ['thread', 'fork-json'] as Mode[]) {
      const { end, lines } = await runHost(['oom-host', mode]);
      console.log(`\n${mode}: the host process ended with ${end}\n  ${lines.join('\n  ')}`);
    }
    return;
  }
  const rounds = Number(process.argv[2] ?? 8);
  const calls = Number(process.argv[3] ?? 3000);
  console.log(`node bench/hand-off.ts ${rounds} ${calls} — ${new Date().toISOString()}, node ${process.version}`);
  const reports: Record<Mode, any[]> = { 'in-process': [], thread: [], 'fork-json': [], 'fork-advanced': [] };
  for (let r = 0; r < rounds; r++) {
    for (const mode of [...MODES.slice(r % 4), ...MODES.slice(0, r % 4)]) {
      const { report, end } = await runHost(['host', mode, String(calls)]);
      if (!report) throw new Error(`host ${mode} ended with ${end}`);
      reports[mode].push(report);
      console.log(`round ${r + 1}: ${mode} done`);
    }
  }
  console.log(`\nMedian over ${rounds} rounds (min–max) of ${calls} calls per phase after ${WARMUP} warm-up; CloneSet Lua`);
  console.log(
    `| call | in flight | variant | CPU µs/call | hand-off CPU µs/call | p50 ms | p99 ms | calls/s | RSS MiB | anonymous MiB | other processes' CPU % |\n${'|---'.repeat(11)}|`,
  );
  for (const [op, inFlight] of PHASES) {
    for (const mode of MODES) {
      const key = `${op} ×${inFlight}`;
      // The hand-off's own CPU: this variant's CPU per call less in-process's of the same round.
      const p = reports[mode].map((rep, r) => ({ ...rep[key], handOff: rep[key].cpuUs - reports['in-process'][r][key].cpuUs }));
      const [cpu, handOff, p50, p99, perS, rss, anon, others] = ['cpuUs', 'handOff', 'p50', 'p99', 'perS', 'rss', 'anon', 'others'].map((field) =>
        column(p, field),
      );
      console.log(`| ${op} | ${inFlight} | ${mode} | ${cpu} | ${handOff} | ${p50} | ${p99} | ${perS} | ${rss} | ${anon} | ${others} |`);
    }
  }
  console.log('\n| variant | start ms (wall) | start CPU ms | restart: exit ms | restart: replacement ready ms |\n|---|---|---|---|---|');
  for (const mode of MODES.slice(1)) {
    const starts = reports[mode].flatMap((rep) => rep.start as any[]);
    const restarts = reports[mode].flatMap((rep) => rep.restart as any[]);
    console.log(`| ${mode} | ${column(starts, 'ms')} | ${column(starts, 'cpuMs')} | ${column(restarts, 'exitMs')} | ${column(restarts, 'readyMs')} |`);
  }
}

if (!isMainThread) serve(parentPort!, (t) => parentPort!.postMessage(t));
else if (process.argv[2] === 'callee') serve(process, (t) => process.send!(t));
else if (process.argv[2] === 'host') process.send!(await host(process.argv[3] as Mode, Number(process.argv[4])), () => process.disconnect!());
else if (process.argv[2] === 'oom-host') await oomHost(process.argv[3] as Mode).then(() => process.disconnect!());
else await main();
