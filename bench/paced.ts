// A fixed-rate pass with requests evenly spaced in time (open loop). autocannon's overallRate hands
// each connection a per-second budget that it spends back to back at the start of every second, so at
// "half the saturation rate" half of each second still runs saturated; this driver sends one request
// every 1/rate s and measures each latency from the moment the request was due, so a server that
// falls behind is charged for the wait (no coordinated omission). It speaks HTTP/1.1 on raw TLS
// keep-alive connections with a prebuilt request, like autocannon: node:https's client costs several
// times more per request and could not sustain the rates needed here on one core.
import { connect, type TLSSocket } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile, type LoadResult } from './load.ts';

interface Connection {
  socket: TLSSocket;
  /** When each request in flight on this connection was due (HTTP/1.1 answers in order). */
  dueTimes: number[];
  buffered: Buffer;
}

const HEADER_END = Buffer.from('\r\n\r\n');

export async function paced(port: number, path: string, body: string, rate: number, durationSeconds: number, connections: number, expectBody?: string): Promise<LoadResult> {
  const request = Buffer.from(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const latencies: number[] = [];
  let failures = 0;
  let answered = 0;
  const onData = (conn: Connection, chunk: Buffer) => {
    conn.buffered = conn.buffered.length ? Buffer.concat([conn.buffered, chunk]) : chunk;
    for (;;) {
      const headerEnd = conn.buffered.indexOf(HEADER_END);
      if (headerEnd < 0) return;
      const head = conn.buffered.subarray(0, headerEnd).toString('latin1');
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      const end = headerEnd + 4 + length;
      if (conn.buffered.length < end) return;
      const ok = head.startsWith('HTTP/1.1 200') && (expectBody === undefined || conn.buffered.subarray(headerEnd + 4, end).toString('utf8') === expectBody);
      const dueAt = conn.dueTimes.shift()!;
      if (ok) latencies.push(performance.now() - dueAt);
      else failures++;
      answered++;
      conn.buffered = conn.buffered.subarray(end);
    }
  };
  const pool = await Promise.all(
    Array.from({ length: connections }, () => new Promise<Connection>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () => resolve(conn));
      const conn: Connection = { socket, dueTimes: [], buffered: Buffer.alloc(0) };
      socket.on('data', (chunk: Buffer) => onData(conn, chunk));
      socket.once('error', reject);
    })),
  );
  // Each request goes to the connection with the fewest requests waiting (pipelining only when all are busy).
  const send = (dueAt: number) => {
    let conn = pool[0]!;
    for (const candidate of pool) if (candidate.dueTimes.length < conn.dueTimes.length) conn = candidate;
    conn.dueTimes.push(dueAt);
    conn.socket.write(request);
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
  const deadline = performance.now() + 30_000;
  while (answered < total && performance.now() < deadline) await sleep(1);
  failures += total - answered;
  const elapsed = (performance.now() - started) / 1000;
  for (const conn of pool) conn.socket.destroy();
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
