// Soak test (not in CI): N minutes of mixed load against the real server process, memory sampled
// throughout; reports RSS and heap growth and fails when the heap's low-water mark keeps rising.
//
//   npm run soak                       # 5 minutes
//   npm run soak -- --minutes 30 --connections 16
//   SOAK_MINUTES=60 npm run soak
//   npm run soak -- --customizations bench/customizations   # CloneSet answered by Lua on the worker threads
//
// The load cycles through every recorded fixture request (all built-in kinds and operations; with
// --customizations, the kinds those target are answered by Lua), the curl examples, and requests that
// must be refused (unknown kind, bad JSON, wrong content type, missing fields); connections are re-established every 500 requests so TLS handshakes
// are part of the mix. Memory is read from the server's own /metrics (V8 heap) and /proc (RSS).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { send, spawnServer } from '../test/support/spawned-server.ts';

const ROOT = resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: process.env.SOAK_MINUTES ?? '5' },
    connections: { type: 'string', default: process.env.SOAK_CONNECTIONS ?? '8' },
    'sample-seconds': { type: 'string', default: process.env.SOAK_SAMPLE_SECONDS ?? '10' },
    // Fail when the heap's low-water mark rises more than this between the first and last third of the run.
    'max-heap-growth-mib': { type: 'string', default: process.env.SOAK_MAX_HEAP_GROWTH_MIB ?? '16' },
    // Passed to the server: the kinds these customizations target are answered by Lua on worker threads.
    customizations: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
const connections = Number(values.connections);
const sampleMs = Number(values['sample-seconds']) * 1000;
const maxGrowth = Number(values['max-heap-growth-mib']);
if (!(minutes > 0) || !(connections > 0) || !(sampleMs > 0)) throw new Error('--minutes, --connections and --sample-seconds must be positive numbers');

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? jsonFiles(path) : name.endsWith('.json') ? [path] : [];
  });
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const valid = [
  ...jsonFiles(join(ROOT, 'test/fixtures')).map((f) => JSON.parse(readFileSync(f, 'utf8')).request),
  ...jsonFiles(join(ROOT, 'examples/requests')).map((f) => JSON.parse(readFileSync(f, 'utf8'))),
].map((r) => JSON.stringify(r.request ? r : { apiVersion: 'config.karmada.io/v1alpha1', kind: 'ResourceInterpreterContext', request: r }));
const unknownKind = valid[0]!.replace(/"kind":"(CloneSet|StatefulSet|Workflow|XlineCluster)"/g, '"kind":"Unknown"');
const requests: autocannon.Request[] = [
  ...valid.map((body) => ({ method: 'POST' as const, path: '/interpret?timeout=10s', headers: JSON_HEADERS, body })),
  { method: 'POST', path: '/interpret?timeout=10s', headers: JSON_HEADERS, body: unknownKind },
  { method: 'POST', path: '/interpret', headers: JSON_HEADERS, body: '{"request": {"uid": "broken"' },
  { method: 'POST', path: '/interpret', headers: { 'content-type': 'text/plain' }, body: valid[0]! },
  {
    method: 'POST',
    path: '/interpret',
    headers: JSON_HEADERS,
    body: '{"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterContext","request":{"uid":"x"}}',
  },
  { method: 'GET', path: '/readyz' },
];

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

interface Sample {
  minute: number;
  rssMiB: number;
  heapMiB: number;
  requests: number;
}

/**
 * Rise of the low-water mark between the first and the last third of the samples. Heap samples swing
 * with garbage not yet collected; the lowest point of a stretch is close to what is live, so a leak
 * shows as a rising minimum while noise does not.
 */
function troughRise(values: number[]): { from: number; to: number; rise: number } {
  const third = Math.max(1, Math.floor(values.length / 3));
  const from = Math.min(...values.slice(0, third));
  const to = Math.min(...values.slice(-third));
  return { from, to, rise: to - from };
}

// Info level as in production (one log line per request), so logging is part of what is soaked.
// The old-space limit of a pod with the manifests' 512Mi memory limit, so the garbage collector works as
// hard as it would there and the heap samples show what is live rather than what V8 had no reason to free.
const serverArgs = ['--log-level', 'info', ...(values.customizations ? ['--customizations', resolve(values.customizations)] : [])];
const server = await spawnServer(serverArgs, {
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${process.env.SOAK_MAX_OLD_SPACE_MIB ?? '256'}`.trim(),
});
const pid = server.child.pid!;
process.stdout.write(`soak: ${minutes} min, ${connections} connections, ${requests.length} request shapes, server pid ${pid} on port ${server.port}\n`);

let completed = 0;
const startedAt = performance.now();
const samples: Sample[] = [];
async function sample() {
  server.logs.length = 0; // the helper keeps parsed log lines; we do not need them
  const metrics = await send(server, { path: '/metrics' });
  const heap = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(metrics.body);
  const s: Sample = {
    minute: (performance.now() - startedAt) / 60_000,
    rssMiB: rssMiB(pid),
    heapMiB: heap ? Number(heap[1]) / 2 ** 20 : NaN,
    requests: completed,
  };
  samples.push(s);
  process.stdout.write(
    `  t=${s.minute.toFixed(1).padStart(5)} min  rss=${s.rssMiB.toFixed(1).padStart(6)} MiB  heap=${s.heapMiB.toFixed(1).padStart(6)} MiB  requests=${s.requests}\n`,
  );
}

const options: autocannon.Options = {
  url: `https://127.0.0.1:${server.port}`,
  servername: 'localhost',
  tlsOptions: { ca: server.ca },
  connections,
  duration: Math.round(minutes * 60),
  reconnectRate: 500,
  timeout: 15,
  requests,
  // Every /interpret answer must be an envelope (HTTP 200 even for refusals).
  verifyBody: (body) => {
    const text = String(body);
    return text.startsWith('{"apiVersion":"config.karmada.io/v1alpha1"') || text.startsWith('{"ready"');
  },
};
const finished = new Promise<autocannon.Result>((resolve, reject) => {
  const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  instance.on('response', () => (completed += 1));
});
await sample();
const timer = setInterval(() => void sample(), sampleMs);
const result = await finished;
clearInterval(timer);
await sample();
await server.stop();

// Growth after a warm-up (the first 10% of the run).
const warm = samples.filter((s) => s.minute >= minutes * 0.1);
const heap = troughRise(warm.map((s) => s.heapMiB));
const rss = troughRise(warm.map((s) => s.rssMiB));
const hours = (warm.at(-1)!.minute - warm[0]!.minute) / 60;
// Extrapolated only over runs long enough for it to mean something.
const perHour = (rise: number) => (hours >= 0.25 ? `${(rise / hours).toFixed(1)} MiB/h if it went on` : 'run 15 min or more for a rate');
const leaking = warm.length >= 6 && heap.rise > maxGrowth;
process.stdout.write(
  [
    '',
    `requests: ${completed} (${result.requests.average.toFixed(0)}/s), errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}, resets ${result.resets}, malformed bodies ${result.mismatches}`,
    `latency: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
    `rss low-water:  ${rss.from.toFixed(1)} -> ${rss.to.toFixed(1)} MiB (${rss.rise >= 0 ? '+' : ''}${rss.rise.toFixed(1)}; ${perHour(rss.rise)}), peak ${Math.max(...samples.map((s) => s.rssMiB)).toFixed(1)} MiB`,
    `heap low-water: ${heap.from.toFixed(1)} -> ${heap.to.toFixed(1)} MiB (${heap.rise >= 0 ? '+' : ''}${heap.rise.toFixed(1)}; ${perHour(heap.rise)}), limit +${maxGrowth} MiB${warm.length < 6 ? ' (too few samples to judge: run longer)' : ''}`,
    '',
  ].join('\n'),
);
const failures = result.errors + result.timeouts + result.non2xx + result.mismatches;
if (failures > 0) process.stdout.write(`FAIL: ${failures} failed or malformed responses\n`);
if (leaking) process.stdout.write(`FAIL: the heap's low-water mark rose ${heap.rise.toFixed(1)} MiB (> ${maxGrowth})\n`);
process.exitCode = failures > 0 || leaking ? 1 : 0;
