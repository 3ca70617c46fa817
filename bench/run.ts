// `npm run bench`: CPU per request of the server process (all threads, user + system, from
// /proc/PID/stat) and round-trip latency, for the bare node:https baseline, our server with its
// TypeScript modules and our server with CloneSet served by Lua customizations (worker threads), at 1
// and at 8 keep-alive connections; then every recorded kind and operation at one connection; then each
// server's CPU with no traffic. Rounds alternate between servers so drift in the machine's speed hits
// them alike. Writes bench/results.md (BENCH_OUT) and prints it. Settings: see bench/README.md.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from 'node:https';
import { generateSelfSigned } from '../src/server/certificates.ts';
import { fixtureCases, largeAggregateCase, type BenchCase } from './cases.ts';
import { batch, connections, type Batch } from './client.ts';
import { CLOCK_TICKS_PER_SECOND, cpuTicks, machineTicks, peakRssBytes, ticksToMicroseconds } from './process-stats.ts';
import { startBaseline, startChildServer, type RunningServer } from './servers.ts';
import { AGGREGATE_50, HEALTH, KARMADA_IN_PROCESS_US, KARMADA_SOURCE, LIMITS, TODAY_LUA_P50_MS, TODAY_SOURCE } from './targets.ts';

const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
/** Measured requests per server, request and client count (the CPU cases), over all rounds. */
const REQUESTS = setting('BENCH_REQUESTS', 2000);
/** Warm-up requests before each measured batch. */
const WARMUP = setting('BENCH_WARMUP', 200);
const ROUNDS = setting('BENCH_ROUNDS', 2);
/** A measured batch lasts at least this long (clock ticks are 10 ms). */
const MIN_BATCH_MS = setting('BENCH_MIN_BATCH_MS', 1000);
const CLIENTS = (process.env.BENCH_CLIENTS ?? '1,8').split(',').map(Number);
/** Requests per round for each of the other operations, at one connection. */
const LATENCY_REQUESTS = setting('BENCH_LATENCY_REQUESTS', 500);
const IDLE_SECONDS = setting('BENCH_IDLE_SECONDS', 5);
const OUT = process.env.BENCH_OUT ?? 'bench/results.md';
const COMPARE = process.env.BENCH_COMPARE;
const CLI = 'dist/src/cli.js';
const LUA_ARGS = ['--customizations', 'bench/customizations'];

const log = (message: string) => process.stdout.write(`${message}\n`);
const sorted = (values: number[]) => Float64Array.from(values).sort();
const quantile = (values: Float64Array, q: number) => values[Math.min(values.length - 1, Math.floor(values.length * q))]!;
const median = (values: number[]) => quantile(sorted(values), 0.5);

interface Target {
  server: RunningServer;
  /** Cases this server answers (the Lua server only differs for CloneSet). */
  serves: (c: BenchCase) => boolean;
  /** Keep-alive connections by client count, kept for the whole run. */
  agents: Map<number, Agent[]>;
}

/** The measurements of one server, request and client count, over all rounds. */
class Cell {
  times: number[] = [];
  requests = 0;
  ticks = 0;
  wallMs = 0;
  add(b: Batch): void {
    for (const t of b.times) this.times.push(t);
    this.requests += b.requests;
    this.ticks += b.cpuTicks;
    this.wallMs += b.wallMs;
  }
  get cpuUs(): number {
    return ticksToMicroseconds(this.ticks) / this.requests;
  }
  get p50(): number {
    return quantile(sorted(this.times), 0.5);
  }
  get p99(): number {
    return quantile(sorted(this.times), 0.99);
  }
  get perSecond(): number {
    return (this.requests * 1000) / this.wallMs;
  }
}

async function main(): Promise<void> {
  const runStarted = performance.now();
  const work = mkdtempSync(join(tmpdir(), 'kiw-bench-'));
  const cert = await generateSelfSigned();
  const certFile = join(work, 'tls.crt');
  const keyFile = join(work, 'tls.key');
  writeFileSync(certFile, cert.certPem);
  writeFileSync(keyFile, cert.keyPem);
  const cases = [...(await fixtureCases()), largeAggregateCase()];
  const cpuCases = [HEALTH, AGGREGATE_50].map((id) => cases.find((c) => c.id === id)!);
  const sizesFile = join(work, 'sizes.json');
  writeFileSync(sizesFile, JSON.stringify(Object.fromEntries(cases.map((c) => [c.id, 600]))));
  const tls = ['--tls-cert-file', certFile, '--tls-key-file', keyFile, '--log-level', 'info'];
  const isCloneSet = (c: BenchCase) => c.target === 'apps.kruise.io CloneSet';

  const builds: Array<[string, string]> = [['', CLI], ...(COMPARE ? ([['before ', COMPARE]] as Array<[string, string]>) : [])];
  const kinds: Array<[string, string[], (c: BenchCase) => boolean]> = [
    ['typescript', tls, () => true],
    ['lua', [...tls, ...LUA_ARGS], isCloneSet],
  ];
  const agentsFor = () => new Map(CLIENTS.map((n) => [n, connections(n)]));
  const targets: Target[] = [];
  const ready: Record<string, number[]> = {};
  targets.push({ server: await startBaseline(certFile, keyFile, sizesFile), serves: () => true, agents: agentsFor() });
  for (const [prefix, cli] of builds) {
    for (const [name, args, serves] of kinds) {
      const server = await startChildServer({ name: `${prefix}${name}`, cli, args, logFile: join(work, `${prefix}${name}.log`.replace(' ', '-')) });
      (ready[server.name] ??= []).push(server.readyMs);
      targets.push({ server, serves, agents: agentsFor() });
    }
  }
  // Start-up again (a second and third start of each server of ours), for a median.
  for (const [prefix, cli] of builds) {
    for (let i = 0; i < 2; i++) {
      for (const [name, args] of kinds) {
        const server = await startChildServer({ name: `${prefix}${name}`, cli, args, logFile: join(work, 'startup.log') });
        ready[server.name]!.push(server.readyMs);
        await server.stop();
      }
    }
  }

  const cells = new Map<string, Cell>();
  const cell = (t: Target, c: BenchCase, clients: number) => {
    const key = `${t.server.name}\u0000${c.id}\u0000${clients}`;
    let found = cells.get(key);
    if (!found) cells.set(key, (found = new Cell()));
    return found;
  };
  const run = (t: Target, c: BenchCase, clients: number, minRequests: number, minMs = 0, settleMs = 100) =>
    batch({
      pid: t.server.pid,
      port: t.server.port,
      path: `/interpret/${c.id}?timeout=10s`,
      body: c.body,
      agents: t.agents.get(clients)!,
      minRequests,
      minMs,
      settleMs,
      check: (status, text) => {
        if (status !== 200 || (t.server.name !== 'baseline' && !text.includes('"successful":true'))) {
          throw new Error(`${t.server.name} ${c.id}: unexpected answer ${status} ${text.slice(0, 200)}`);
        }
      },
    });

  // What else ran on the machine while we measured: its busy time less ours (client and servers, which are
  // this process's children and so in its tree).
  const ourTicks = () => cpuTicks(process.pid);
  const machineBefore = machineTicks();
  const oursBefore = ourTicks();
  const measureStarted = performance.now();
  log(`warm-up: every request on every server`);
  for (const c of cases) for (const t of targets) if (t.serves(c)) await run(t, c, 1, 100, 0, 0);
  for (const c of cpuCases) for (const t of targets) for (const n of CLIENTS) await run(t, c, n, WARMUP, 0, 0);

  for (let round = 1; round <= ROUNDS; round++) {
    for (const c of cpuCases) {
      for (const clients of CLIENTS) {
        log(`round ${round}/${ROUNDS}: ${c.operation}, ${clients} client${clients > 1 ? 's' : ''}`);
        for (const t of targets) {
          await run(t, c, clients, WARMUP, 0, 0);
          cell(t, c, clients).add(await run(t, c, clients, Math.ceil(REQUESTS / ROUNDS), MIN_BATCH_MS));
        }
      }
    }
  }
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round}/${ROUNDS}: every operation, 1 client`);
    for (const c of cases) for (const t of targets) if (t.serves(c)) cell(t, c, 0).add(await run(t, c, 1, LATENCY_REQUESTS, 0, 20));
  }

  log(`idle: ${IDLE_SECONDS} s without traffic`);
  await sleep(1000);
  const idleBefore = targets.map((t) => cpuTicks(t.server.pid));
  await sleep(IDLE_SECONDS * 1000);
  const idleTicks = Object.fromEntries(targets.map((t, i) => [t.server.name, cpuTicks(t.server.pid) - idleBefore[i]!]));
  const measureSeconds = (performance.now() - measureStarted) / 1000;
  const machineAfter = machineTicks();
  const otherShare = ticksToMicroseconds(machineAfter.busy - machineBefore.busy - (ourTicks() - oursBefore)) / 1e6 / measureSeconds;
  const stealShare = ticksToMicroseconds(machineAfter.steal - machineBefore.steal) / 1e6 / measureSeconds;
  const peak = Object.fromEntries(targets.map((t) => [t.server.name, peakRssBytes(t.server.pid) / 1048576]));
  for (const t of targets) {
    for (const agents of t.agents.values()) for (const agent of agents) agent.destroy();
    await t.server.stop();
  }
  // Every CloneSet answer of a Lua server came from Lua (its log names the implementation of each call).
  for (const t of targets.filter((t) => t.server.name.endsWith('lua'))) {
    const lines = readFileSync(t.server.logFile!, 'utf8').split('\n');
    const notLua = lines.filter((l) => l.includes('"kind":"CloneSet"') && l.includes('"interpreted"') && !l.includes('"implementation":"lua:'));
    const lua = lines.filter((l) => l.includes('"implementation":"lua:')).length;
    if (notLua.length > 0 || lua === 0) throw new Error(`${t.server.name}: ${notLua.length} CloneSet answers not by Lua, ${lua} by Lua: ${notLua[0]}`);
  }
  rmSync(work, { recursive: true, force: true });
  const runSeconds = (performance.now() - runStarted) / 1000;

  // Report.
  const names = targets.map((t) => t.server.name);
  const byName = (name: string) => targets.find((t) => t.server.name === name)!;
  const get = (name: string, c: BenchCase, clients: number) => cells.get(`${name}\u0000${c.id}\u0000${clients}`);
  const us = (v: number) => (v >= 10 ? v.toFixed(0) : v.toFixed(1));
  const ms = (v: number) => v.toFixed(3);
  const verdict = (ok: boolean) => (ok ? 'pass' : '**FAIL**');
  const short = (c: BenchCase) => c.target.replace('apps.kruise.io ', '').replace('argoproj.io ', '');
  const lines: string[] = [];
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', ['--no-optional-locks', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return '';
    }
  };
  const changed = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean).length;
  lines.push('# Benchmark results', '');
  lines.push(
    `${new Date().toISOString()} · commit ${git('rev-parse', '--short', 'HEAD') || 'unknown'}${changed ? ` with ${changed} uncommitted change${changed > 1 ? 's' : ''} under src/` : ''} · ${cpus()[0]?.model ?? 'cpu'} × ${cpus().length} · ${Math.round(totalmem() / 2 ** 30)} GiB · Node ${process.version} · load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(
        ' ',
      )} at the end · ${Math.round(runSeconds)} s · while measuring, other processes used ${Math.round(otherShare * 100)}% of a core and the hypervisor stole ${Math.round(stealShare * 100)}%`,
  );
  if (otherShare > 0.2) {
    lines.push(
      '',
      `**Taken under load** (other processes: ${Math.round(otherShare * 100)}% of a core): CPU per request and latency rise with contention; compare with a quiet run only.`,
    );
  }
  lines.push(
    '',
    `CPU per request: the server process's utime + stime (all threads, /proc/PID/stat, ${CLOCK_TICKS_PER_SECOND} ticks/s) read 100 ms before and after each batch; per row ${ROUNDS} batches (rounds, servers alternating), each after ${WARMUP} warm-up requests and of at least ${Math.ceil(REQUESTS / ROUNDS)} requests and ${MIN_BATCH_MS} ms; latency: round trip in the client (ms). N clients = N keep-alive HTTPS connections, each sending one request at a time. The client shares the machine's ${cpus().length} cores.`,
    '',
    '## CPU per request and latency',
    '',
    '| request | clients | server | CPU µs/request | ± (a tick per batch) | p50 ms | p99 ms | requests/s |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const c of cpuCases) {
    for (const clients of CLIENTS) {
      for (const name of names) {
        const x = get(name, c, clients)!;
        lines.push(
          `| ${short(c)} ${c.operation} | ${clients} | ${name} | ${us(x.cpuUs)} | ${((100 * ROUNDS) / x.ticks).toFixed(1)}% | ${ms(x.p50)} | ${ms(x.p99)} | ${Math.round(x.perSecond)} |`,
        );
      }
    }
  }

  lines.push('', '## Targets (issue 31)', '', '| target | clients | measured | limit | |', '|---|---|---|---|---|');
  const health = cpuCases[0]!;
  const aggregate = cpuCases[1]!;
  const karmada = KARMADA_IN_PROCESS_US[AGGREGATE_50]!;
  for (const clients of CLIENTS) {
    const lua = get('lua', health, clients)!.cpuUs;
    const ts = get('typescript', health, clients)!.cpuUs;
    const ratio = lua / ts;
    lines.push(
      `| Lua InterpretHealth CPU/request against the TypeScript module's | ${clients} | ${us(lua)} / ${us(ts)} µs = ${ratio.toFixed(2)}× | ≤ ${LIMITS.luaHealthOverTypeScript}× | ${verdict(ratio <= LIMITS.luaHealthOverTypeScript)} |`,
    );
  }
  for (const clients of CLIENTS) {
    const lua = get('lua', aggregate, clients)!.cpuUs;
    lines.push(
      `| Lua 50-cluster AggregateStatus CPU/request against Karmada's in-process ${karmada.low}–${karmada.high} µs | ${clients} | ${us(lua)} µs = ${(lua / karmada.high).toFixed(2)}–${(lua / karmada.low).toFixed(2)}× | ≤ ${LIMITS.luaAggregateOverKarmada}× | ${verdict(lua / karmada.low <= LIMITS.luaAggregateOverKarmada)} |`,
    );
  }
  const before = names.includes('before lua') ? 'before lua' : undefined;
  for (const c of cases.filter(isCloneSet)) {
    const now = (get('lua', c, 1) ?? get('lua', c, 0))!.p50;
    const reference = before ? (get(before, c, 1) ?? get(before, c, 0))!.p50 : TODAY_LUA_P50_MS[c.id];
    if (reference === undefined) continue;
    const above = now - reference;
    lines.push(
      `| Lua p50 against today's${before ? ' (BENCH_COMPARE, same run)' : ''}: ${c.operation} | 1 | ${ms(now)} ms, today ${ms(reference)} (${above >= 0 ? '+' : ''}${ms(above)}) | ≤ +${LIMITS.luaP50AboveTodayMs} ms | ${verdict(above <= LIMITS.luaP50AboveTodayMs)} |`,
    );
  }
  for (const name of names) {
    const share = ticksToMicroseconds(idleTicks[name]!) / 1e6 / IDLE_SECONDS;
    lines.push(
      `| idle CPU, ${name} | 0 | ${(share * 100).toFixed(2)}% of a core (${idleTicks[name]} tick${idleTicks[name] === 1 ? '' : 's'} in ${IDLE_SECONDS} s) | ≤ ${LIMITS.idleShareOfCore * 100}% | ${verdict(share <= LIMITS.idleShareOfCore)} |`,
    );
  }
  lines.push('', 'Not targets, for reading the above:', '');
  for (const clients of CLIENTS) {
    const parts = [health, aggregate].map((c) => {
      const [b, ts, lua] = ['baseline', 'typescript', 'lua'].map((n) => get(n, c, clients)!.cpuUs);
      const k = KARMADA_IN_PROCESS_US[c.id]!;
      return `${c.operation}: TypeScript ${(ts! / b!).toFixed(2)}× the bare server's CPU, Lua ${(lua! / b!).toFixed(2)}×; Lua ${(lua! / k.high).toFixed(2)}–${(lua! / k.low).toFixed(2)}× Karmada's in-process ${k.low}–${k.high} µs`;
    });
    lines.push(`- ${clients} client${clients > 1 ? 's' : ''}: ${parts.join('; ')}.`);
  }
  lines.push(`- Karmada's figures: ${KARMADA_SOURCE}. Today's Lua p50: ${before ? 'the BENCH_COMPARE build, this run' : TODAY_SOURCE}.`);

  lines.push(
    '',
    '## Every operation, 1 client',
    '',
    `${ROUNDS} rounds × ${LATENCY_REQUESTS} requests per server and request, servers alternating. CPU µs/request (from ${CLOCK_TICKS_PER_SECOND} Hz ticks over these shorter batches: ±${us(ticksToMicroseconds(ROUNDS) / (ROUNDS * LATENCY_REQUESTS))} µs) · p50 · p99 ms.`,
    '',
    `| request | bytes | ${names.join(' | ')} |`,
    `|---|---|${names.map(() => '---').join('|')}|`,
  );
  for (const c of cases) {
    const row = names.map((n) => {
      const x = byName(n).serves(c) ? get(n, c, 0) : undefined;
      return x ? `${us(x.cpuUs)} · ${ms(x.p50)} · ${x.p99.toFixed(2)}` : '–';
    });
    lines.push(`| ${short(c)} ${c.operation} | ${c.body.length} | ${row.join(' | ')} |`);
  }

  lines.push('', '## Start-up and memory', '', '| server | spawn to /readyz 200, median of 3 (ms) | peak RSS during the run (MiB) |', '|---|---|---|');
  for (const name of names) lines.push(`| ${name} | ${ready[name] ? Math.round(median(ready[name])) : '–'} | ${Math.round(peak[name]!)} |`);
  writeFileSync(OUT, `${lines.join('\n')}\n`);
  log('');
  log(lines.join('\n'));
}

await main();
