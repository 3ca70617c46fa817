// A fixed-rate pass with requests evenly spaced in time (open loop). autocannon's overallRate hands
// each connection a per-second budget that it spends back to back at the start of every second, so at
// "half the saturation rate" half of each second still runs saturated; this driver sends one request
// every 1/rate s instead and measures each latency from the moment the request was due, so a server
// that falls behind is charged for the wait (no coordinated omission).
import { Agent, request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile, type LoadResult } from './load.js';

export async function paced(port: number, path: string, body: string, rate: number, durationSeconds: number, connections: number, expectBody?: string): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, rejectUnauthorized: false });
  const latencies: number[] = [];
  let failures = 0;
  const pending = new Set<Promise<void>>();
  const send = (dueAt: number) => {
    const done = new Promise<void>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const ok = res.statusCode === 200 && (expectBody === undefined || Buffer.concat(chunks).toString('utf8') === expectBody);
          if (ok) latencies.push(performance.now() - dueAt);
          else failures++;
          resolve();
        });
      });
      req.on('error', () => {
        failures++;
        resolve();
      });
      req.end(body);
    });
    pending.add(done);
    void done.then(() => pending.delete(done));
  };
  const total = Math.round(rate * durationSeconds);
  const interval = 1000 / rate;
  const started = performance.now();
  let sent = 0;
  while (sent < total) {
    const now = performance.now();
    while (sent < total && started + sent * interval <= now) send(started + sent++ * interval);
    await sleep(Math.max(0, Math.min(1, started + sent * interval - performance.now())));
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  const sorted = Float64Array.from(latencies).sort();
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
    completed: latencies.length,
    failures,
  };
}
