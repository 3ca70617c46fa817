// Driving a server with autocannon over HTTPS keep-alive: a saturation pass (as fast as the server
// answers with a fixed number of connections). Fixed-rate passes are paced.ts's.
// Latencies are collected from autocannon's per-response events (hrtime, sub-millisecond) because its
// own histogram has 1 ms resolution; throughput is completed requests / measured duration.
import autocannon from 'autocannon';

export interface LoadOptions {
  connections: number;
  durationSeconds: number;
  /** The exact answer every request must get (our answers are HTTP 200 even when they fail). */
  expectBody?: string;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  completed: number;
  /** errors + timeouts + non-2xx + resets + answers other than expectBody: must be 0 for the numbers to count. */
  failures: number;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function drive(port: number, path: string, body: string, options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const instance = autocannon({
    url: `https://127.0.0.1:${port}${path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'Go-http-client/1.1' },
    body,
    connections: options.connections,
    pipelining: 1,
    duration: options.durationSeconds,
    sampleInt: 250,
    ...(options.expectBody ? { expectBody: options.expectBody } : {}),
  });
  let notOk = 0;
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status === 200) latencies.push(ms);
    else notOk++;
  });
  const result = await instance;
  const sorted = Float64Array.from(latencies).sort();
  return {
    requestsPerSecond: latencies.length / result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
    completed: latencies.length,
    failures: notOk + result.errors + result.timeouts + result.non2xx + result.resets + result.mismatches,
  };
}
