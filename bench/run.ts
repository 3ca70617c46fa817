// `npm run bench`: how long Karmada waits for an answer. For every recorded kind and operation, and a
// CloneSet AggregateStatus with 50 member clusters, one keep-alive HTTPS connection sends requests one
// after another (as Karmada's client does per call) to the bare node:https baseline, to our server with
// its TypeScript modules, and to our server with CloneSet served by Lua customizations (worker threads);
// rounds alternate between servers so drift in the machine's speed hits them alike. Also start-up time
// to /readyz and peak memory. Writes bench/results.md (BENCH_OUT to change).
// BENCH_COMPARE=<path to another build's dist/src/cli.js> adds that build's servers to the same run
// (before/after comparisons). BENCH_ROUNDS (default 5) and BENCH_REQUESTS (per round, default 200).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSelfSigned } from '../src/server/certificates.ts';
import { fixtureCases, largeAggregateCase, type BenchCase } from './cases.ts';
import { peakRssBytes } from './process-stats.ts';
import { keepAliveAgent, post, startBaseline, startChildServer, type RunningServer } from './servers.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const WARMUP = 100;
const OUT = process.env.BENCH_OUT ?? 'bench/results.md';
const COMPARE = process.env.BENCH_COMPARE;
const CLI = 'dist/src/cli.js';
// Karmada's own in-process Lua on this machine kind (gopher-lua, script compiled on every call), from
// the project's issue on hard bounds; Karmada itself cannot run here (no Go toolchain).
const KARMADA_IN_PROCESS_MS: Record<string, number> = {
  'cloneset-interprethealth': 0.08,
  'cloneset-aggregatestatus': 0.58,
  'cloneset-aggregatestatus-50': 1.9,
};

const log = (message: string) => process.stdout.write(`${message}\n`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!;

interface Target {
  server: RunningServer;
  agent: ReturnType<typeof keepAliveAgent>;
  /** Cases this server answers (the Lua server only differs for CloneSet). */
  serves: (c: BenchCase) => boolean;
}

/** Round-trip times (ms) of `count` requests sent one after another on the target's connection. */
async function roundTrips(target: Target, c: BenchCase, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const { status, text } = await post(target.server.port, `/interpret/${c.id}?timeout=10s`, c.body, target.agent);
    times.push(performance.now() - started);
    if (status !== 200 || (target.server.name !== 'baseline' && !text.includes('"successful":true'))) {
      throw new Error(`${target.server.name} ${c.id}: unexpected answer ${status} ${text.slice(0, 200)}`);
    }
  }
  return times;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'kiw-bench-'));
  const cert = await generateSelfSigned();
  const certFile = join(work, 'tls.crt');
  const keyFile = join(work, 'tls.key');
  writeFileSync(certFile, cert.certPem);
  writeFileSync(keyFile, cert.keyPem);
  const cases = [...(await fixtureCases()), largeAggregateCase()];
  const sizesFile = join(work, 'sizes.json');
  writeFileSync(sizesFile, JSON.stringify(Object.fromEntries(cases.map((c) => [c.id, 600]))));
  const tls = ['--tls-cert-file', certFile, '--tls-key-file', keyFile, '--log-level', 'info'];
  const isCloneSet = (c: BenchCase) => c.target === 'apps.kruise.io CloneSet';

  const builds: Array<[string, string]> = [['', CLI], ...(COMPARE ? ([['before ', COMPARE]] as Array<[string, string]>) : [])];
  const targets: Target[] = [];
  const ready: Record<string, number[]> = {};
  const baseline = await startBaseline(certFile, keyFile, sizesFile);
  targets.push({ server: baseline, agent: keepAliveAgent(), serves: () => true });
  for (const [prefix, cli] of builds) {
    for (const [name, args, serves] of [
      ['typescript', tls, () => true],
      ['lua', [...tls, '--customizations', 'bench/customizations'], isCloneSet],
    ] as Array<[string, string[], (c: BenchCase) => boolean]>) {
      const server = await startChildServer({ name: `${prefix}${name}`, cli, args, logFile: join(work, `${prefix}${name}.log`.replace(' ', '-')) });
      (ready[server.name] ??= []).push(server.readyMs);
      targets.push({ server, agent: keepAliveAgent(), serves });
    }
  }
  // Start-up again (a second and third start of each TypeScript/Lua server), for a median.
  for (const [prefix, cli] of builds) {
    for (let i = 0; i < 2; i++) {
      for (const [name, args] of [
        ['typescript', tls],
        ['lua', [...tls, '--customizations', 'bench/customizations']],
      ] as Array<[string, string[]]>) {
        const server = await startChildServer({ name: `${prefix}${name}`, cli, args, logFile: join(work, 'startup.log') });
        ready[server.name]!.push(server.readyMs);
        await server.stop();
      }
    }
  }

  const times = new Map<string, number[]>();
  const key = (t: Target, c: BenchCase) => `${t.server.name}\u0000${c.id}`;
  for (const c of cases) for (const t of targets) if (t.serves(c)) await roundTrips(t, c, WARMUP);
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round}/${ROUNDS}`);
    for (const c of cases) {
      for (const t of targets) {
        if (!t.serves(c)) continue;
        const list = times.get(key(t, c)) ?? [];
        list.push(...(await roundTrips(t, c, c.large ? Math.ceil(REQUESTS / 4) : REQUESTS)));
        times.set(key(t, c), list);
      }
    }
  }
  const peak = Object.fromEntries(targets.map((t) => [t.server.name, peakRssBytes(t.server.pid) / 1048576]));
  for (const t of targets) {
    t.agent.destroy();
    await t.server.stop();
  }

  const lines: string[] = [];
  lines.push(`# Benchmark results`, '');
  lines.push(
    `${new Date().toISOString()} · ${cpus()[0]?.model ?? 'cpu'} × ${cpus().length} · ${Math.round(totalmem() / 2 ** 30)} GiB · Node ${process.version} · load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end`,
  );
  lines.push(
    '',
    `Round trips on one keep-alive HTTPS connection, one request at a time; ${ROUNDS} rounds × ${REQUESTS} requests per case and server (a quarter for 50 clusters), servers alternating. Milliseconds; ratio = median against the bare baseline's median for the same request.`,
    '',
  );
  const serverNames = targets.map((t) => t.server.name).filter((n) => n !== 'baseline');
  lines.push(`| case | bytes | baseline p50 | ${serverNames.map((n) => `${n} p50 (× baseline) · p99`).join(' | ')} |`);
  lines.push(`|---|---|---|${serverNames.map(() => '---').join('|')}|`);
  for (const c of cases) {
    const base = times.get(key(targets[0]!, c))!;
    const cells = targets.slice(1).map((t) => {
      const list = times.get(key(t, c));
      if (!list) return '–';
      return `${median(list).toFixed(3)} (${(median(list) / median(base)).toFixed(2)}×) · ${quantile(list, 0.99).toFixed(2)}`;
    });
    lines.push(
      `| ${c.target.replace('apps.kruise.io ', '').replace('argoproj.io ', '')} ${c.operation} | ${c.body.length} | ${median(base).toFixed(3)} | ${cells.join(' | ')} |`,
    );
  }
  lines.push('', '## Against Karmada in-process', '');
  lines.push(
    "Karmada's own Lua runs in its controller's process: no transport. Our time here is the round trip less the bare baseline's round trip for the same request (what the webhook adds over the transport Karmada pays for any webhook).",
    '',
  );
  lines.push(`| case | Karmada in-process | ${serverNames.join(' | ')} |`);
  lines.push(`|---|---|${serverNames.map(() => '---').join('|')}|`);
  for (const c of cases.filter(isCloneSet)) {
    const id = c.large ? 'cloneset-aggregatestatus-50' : `cloneset-${c.operation.toLowerCase()}`;
    const karmada = KARMADA_IN_PROCESS_MS[id];
    if (karmada === undefined) continue;
    const base = median(times.get(key(targets[0]!, c))!);
    const cells = targets.slice(1).map((t) => {
      const list = times.get(key(t, c));
      if (!list) return '–';
      const added = median(list) - base;
      return `${added.toFixed(3)} (${(added / karmada).toFixed(2)}×)`;
    });
    lines.push(`| ${c.operation} | ${karmada.toFixed(2)} | ${cells.join(' | ')} |`);
  }
  lines.push('', '## Start-up and memory', '');
  lines.push(`| server | spawn to /readyz 200, median of 3 (ms) | peak RSS during the run (MiB) |`, '|---|---|---|');
  for (const name of serverNames) lines.push(`| ${name} | ${Math.round(median(ready[name]!))} | ${Math.round(peak[name]!)} |`);
  writeFileSync(OUT, `${lines.join('\n')}\n`);
  log(lines.join('\n'));
  rmSync(work, { recursive: true, force: true });
}

await main();
