// `npm run bench`: our server against a bare HTTPS baseline, Lua against TypeScript, compile caching,
// start-up time; writes bench/results.md. Expects a fresh `npm run build` (the npm script runs it).
// Environment: BENCH_DURATION (seconds per pass, default 1.5), BENCH_WARMUP (default 0.5),
// BENCH_CONNECTIONS (default 8), BENCH_CONDITIONS (free text for results.md), BENCH_OUT (results file),
// BENCH_ONLY (a regular expression: only the TypeScript, baseline and Lua passes of matching case ids,
// printed and not written; for quick before/after comparisons while optimising), BENCH_SERVE_ARGS
// (extra `serve` arguments for the TypeScript server, e.g. "--log-level warn" to see what logging costs),
// BENCH_SERVER_NODE_OPTIONS (NODE_OPTIONS for our server processes only, e.g. "--max-semi-space-size=32").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { generateSelfSigned } from '../src/server/certificates.ts';
import type { InterpreterContext } from '../src/protocol/wire.ts';
import { fixtureCases, largeAggregateCase, type BenchCase } from './cases.ts';
import { drive, type LoadResult } from './load.ts';
import { paced } from './paced.ts';
import { compileOnceVersusEveryCall } from './lua-compile.ts';
import { peakRssBytes, sampled } from './process-stats.ts';
import { machine, markdown, type CaseRow, type Findings, type Measured, type PacedRate } from './report.ts';
import { post, startBaseline, startChildServer, startInProcessServer, type RunningServer } from './servers.ts';
import { serverLoopStalls, watchOwnLoop } from './stalls.ts';
import { measureStartup } from './startup.ts';

const durationSeconds = Number(process.env.BENCH_DURATION ?? 1.5);
const warmupSeconds = Number(process.env.BENCH_WARMUP ?? 0.5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
const outFile = process.env.BENCH_OUT ?? 'bench/results.md';
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
const MB = 1024 * 1024;

const log = (message: string) => process.stdout.write(`${message}\n`);
const pathOf = (c: BenchCase) => `/interpret/${c.id}?timeout=10s`;

/** Answers our servers gave to each case when checked: every answer under load must be the same. */
const expected = new Map<string, string>();
const expectedKey = (server: RunningServer, c: BenchCase) => `${server.name} ${c.id}`;

async function measure(server: RunningServer, c: BenchCase): Promise<Measured> {
  const expectBody = expected.get(expectedKey(server, c));
  if (warmupSeconds > 0) await drive(server.port, pathOf(c), c.body, { connections, durationSeconds: warmupSeconds, expectBody });
  const run = await sampled(server.pids, () => drive(server.port, pathOf(c), c.body, { connections, durationSeconds, expectBody }));
  if (run.result.failures > 0) throw new Error(`${server.name} ${c.id}: ${run.result.failures} failed requests`);
  return { ...run.result, peakRssMb: run.peakRss / MB, cpuCores: run.cpuCores, generatorCpuCores: run.generatorCpuCores };
}

/** Half the saturation rate, evenly spaced (paced.ts: autocannon's overallRate would send it in bursts). */
async function halfRate(server: RunningServer, c: BenchCase, saturated: number): Promise<PacedRate> {
  return evenlySpaced(server, c, Math.max(1, Math.round(saturated / 2)));
}

/** An evenly spaced pass, with the event-loop stalls of the server (when it has /metrics) and of the generator. */
async function evenlySpaced(server: RunningServer, c: BenchCase, rate: number, serverHasMetrics = true): Promise<PacedRate> {
  if (serverHasMetrics) await serverLoopStalls(server.port); // resets the server's delay histogram
  const generatorStalls = watchOwnLoop();
  const spaced = await paced(server.port, pathOf(c), c.body, rate, durationSeconds, connections, expected.get(expectedKey(server, c)));
  const generator = generatorStalls();
  if (spaced.failures > 0) throw new Error(`${server.name} ${c.id}: ${spaced.failures} failed requests at a fixed rate`);
  return { ...spaced, rate, generatorStalls: generator, serverStalls: serverHasMetrics ? await serverLoopStalls(server.port) : undefined };
}

/** Sends every case once, checks the answer (fixtures: exactly the recorded response), returns answer sizes. */
async function check(server: RunningServer, cases: BenchCase[], compareToRecording: boolean): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const c of cases) {
    const { status, text } = await post(server.port, pathOf(c), c.body);
    const answer = JSON.parse(text) as InterpreterContext;
    if (status !== 200 || answer.response?.successful !== true) throw new Error(`${server.name} ${c.id}: unexpected answer ${status} ${text.slice(0, 300)}`);
    if (compareToRecording && !c.large && !isDeepStrictEqual(answer, c.expectedResponse)) {
      throw new Error(`${server.name} ${c.id}: answer differs from the recording ${c.source}`);
    }
    sizes.set(c.id, Buffer.byteLength(text));
    expected.set(expectedKey(server, c), text);
  }
  return sizes;
}

const fmt = (m: LoadResult) => `${Math.round(m.requestsPerSecond)} req/s p50 ${m.p50Ms.toFixed(2)} ms p99 ${m.p99Ms.toFixed(2)} ms`;

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadavg();
  log(`bench: ${machine()}; ${connections} connections, ${warmupSeconds} s warm-up + ${durationSeconds} s per pass`);
  const dir = mkdtempSync(join(tmpdir(), 'karmada-interpreter-bench-'));
  const certs = await generateSelfSigned();
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  writeFileSync(certFile, certs.certPem);
  writeFileSync(keyFile, certs.keyPem);
  const serverFiles = { certFile, keyFile };

  const cases = [...(await fixtureCases()), largeAggregateCase()].filter((c) => !only || only.test(c.id));
  const rows: CaseRow[] = [];
  let ts: RunningServer | undefined;
  let lua: RunningServer | undefined;
  let baseline: RunningServer | undefined;
  const findings: Partial<Findings> = { inProcess: [], cluster: [], compile: [], startup: [] };
  try {
    const serveArgs = process.env.BENCH_SERVE_ARGS?.split(' ').filter(Boolean) ?? [];
    ts = await startChildServer({ name: 'typescript', ...serverFiles, logFile: join(dir, 'typescript.log'), extraArgs: serveArgs });
    const sizes = await check(ts, cases, true);
    log(`checked ${cases.length} cases against the recordings`);
    const sizesFile = join(dir, 'sizes.json');
    writeFileSync(sizesFile, JSON.stringify(Object.fromEntries(sizes)));
    baseline = await startBaseline(certFile, keyFile, sizesFile);
    // The same CloneSet requests served by Lua customizations, in a server of its own that runs
    // alongside, so each Lua pass comes right after the TypeScript pass it is compared with (this VM's
    // speed drifts over minutes: ratios from passes minutes apart moved by 2×).
    const cloneSetCases = cases.filter((c) => c.target === 'apps.kruise.io CloneSet');
    lua = await startChildServer({ name: 'lua', ...serverFiles, logFile: join(dir, 'lua.log'), extraArgs: ['--customizations', 'bench/customizations'] });
    await check(lua, cloneSetCases, false);

    // TypeScript modules against the baseline (and Lua after TypeScript), adjacent passes per case.
    for (const c of cases) {
      const base = await measure(baseline, c);
      const ours = await measure(ts, c);
      const row: CaseRow = { id: c.id, target: c.target, operation: c.operation, requestBytes: Buffer.byteLength(c.body), responseBytes: sizes.get(c.id)!, ours, baseline: base };
      rows.push(row);
      log(`${c.id.padEnd(58)} ours ${fmt(ours)} cpu ${ours.cpuCores.toFixed(2)} gen ${ours.generatorCpuCores.toFixed(2)} | baseline ${fmt(base)} cpu ${base.cpuCores.toFixed(2)} gen ${base.generatorCpuCores.toFixed(2)} | ratio ${(ours.requestsPerSecond / base.requestsPerSecond).toFixed(2)}`);
      if (cloneSetCases.includes(c)) {
        row.lua = await measure(lua, c);
        log(`${c.id.padEnd(58)} lua ${fmt(row.lua)} cpu ${row.lua.cpuCores.toFixed(2)} | lua/ts ${(row.lua.requestsPerSecond / ours.requestsPerSecond).toFixed(2)}`);
      }
    }
    // p99 at half the measured saturation throughput, for the CloneSet cases, TypeScript and Lua.
    for (const c of cloneSetCases) {
      const row = rows.find((r) => r.id === c.id)!;
      const half = await halfRate(ts, c, row.ours.requestsPerSecond);
      row.pacedRate = half;
      // The control: the bare baseline at the same evenly spaced rate on the same machine.
      row.baselinePacedRate = await evenlySpaced(baseline, c, half.rate, false);
      log(
        `${c.id.padEnd(58)} at ${half.rate}/s evenly spaced: ${fmt(half)}, stalls server ${half.serverStalls?.maxMs.toFixed(0)} ms generator ${half.generatorStalls.maxMs.toFixed(0)} ms | baseline ${fmt(row.baselinePacedRate)}`,
      );
      row.luaPacedRate = await halfRate(lua, c, row.lua!.requestsPerSecond);
      log(`${c.id.padEnd(58)} lua at ${row.luaPacedRate.rate}/s evenly spaced: ${fmt(row.luaPacedRate)}, stalls server ${row.luaPacedRate.serverStalls?.maxMs.toFixed(0)} ms`);
    }
    const pair = only ? [] : [cases.find((c) => c.id === 'apps-kruise-io-cloneset-interpretreplica')!, cases.find((c) => c.large)!];
    const tsPeak = peakRssBytes(ts.pids[0]!);
    const luaPeak = peakRssBytes(lua.pids[0]!);
    findings.peakRssMb = { typescript: tsPeak / MB, lua: luaPeak / MB };
    await Promise.all([ts.stop(), lua.stop(), baseline.stop()]);
    ts = undefined;
    lua = undefined;
    baseline = undefined;
    if (only) return;

    // Child process against in-process, and one process against two (not in BENCH_ONLY runs).
    if (pair.length > 0) {
      const inProcess = await startInProcessServer(certs.certPem, certs.keyPem, join(dir, 'in-process.log'));
      try {
        await check(inProcess, pair, true);
        for (const c of pair) {
          const child = rows.find((r) => r.id === c.id)!.ours;
          findings.inProcess!.push({ id: c.id, child, inProcess: await measure(inProcess, c) });
        }
      } finally {
        await inProcess.stop();
      }
      const two = await startChildServer({ name: 'two processes', ...serverFiles, logFile: join(dir, 'cluster.log'), processes: 2 });
      try {
        await check(two, pair, true);
        for (const c of pair) {
          findings.cluster!.push({ id: c.id, one: rows.find((r) => r.id === c.id)!.ours, two: await measure(two, c) });
          log(`${c.id.padEnd(58)} two processes: ${fmt(findings.cluster!.at(-1)!.two)}`);
        }
      } finally {
        await two.stop();
      }
    }


    const small = JSON.parse(cloneSetCases.find((c) => c.operation === 'AggregateStatus')!.body) as InterpreterContext;
    const large = JSON.parse(cases.find((c) => c.large)!.body) as InterpreterContext;
    for (const [label, request, calls] of [
      [`CloneSet, ${small.request!.aggregatedStatus!.length} status items`, small, 2000],
      [`CloneSet, ${large.request!.aggregatedStatus!.length} status items`, large, 750],
    ] as const) {
      const result = await compileOnceVersusEveryCall(label, request.request!.object, request.request!.aggregatedStatus!, calls);
      findings.compile!.push(result);
      log(`lua ${label}: compiled once ${result.cachedUsPerCall.toFixed(1)} µs/call, recompiled ${result.recompileUsPerCall.toFixed(1)} µs/call, ${result.speedup.toFixed(1)}×`);
    }
    // npm start on a new machine generates the self-signed set (each pass into an empty directory);
    // every later npm start serves the kept one; a pod is given its certificate files.
    const selfSignedDir = (i: number) => join(dir, `self-signed-${i}`);
    for (const [label, args] of [
      ['first start: self-signed certificate generated (npm start)', (i: number) => ['--self-signed-dir', selfSignedDir(i)]],
      ['restart: self-signed certificate kept from the first start (npm start)', (i: number) => ['--self-signed-dir', selfSignedDir(i)]],
      ['certificate files given (--tls-cert-file/--tls-key-file, as with a Secret)', () => ['--tls-cert-file', certFile, '--tls-key-file', keyFile]],
    ] as const) {
      for (let i = 0; i < 3; i++) {
        findings.startup!.push({ label, ...(await measureStartup(args(i))) });
        log(`start-up, ${label}: ready after ${Math.round(findings.startup!.at(-1)!.readyMs)} ms`);
      }
    }
  } finally {
    await Promise.all([ts?.stop(), lua?.stop(), baseline?.stop()]);
  }
  const result: Findings = {
    ...(findings as Findings),
    startedAt,
    finishedAt: new Date(),
    loadBefore,
    loadAfter: loadavg(),
    settings: { connections, durationSeconds, warmupSeconds },
    rows,
    conditions: process.env.BENCH_CONDITIONS ?? 'not stated (set BENCH_CONDITIONS)',
  };
  const text = markdown(result);
  writeFileSync(outFile, text);
  rmSync(dir, { recursive: true, force: true });
  log(`\n${text}\nwritten to ${outFile}`);
}

await main();
