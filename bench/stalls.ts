// Where a latency tail comes from. During an evenly spaced pass we read the longest event-loop stalls
// of the server (prom-client's monitorEventLoopDelay behind /metrics, reset at every scrape, 10 ms
// resolution) and of the load generator (this process, 1 ms resolution): a request that waited 80 ms
// while neither loop stalled was held up outside Node (scheduler, other processes, the VM).
import { request } from 'node:https';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LoopStalls {
  p99Ms: number;
  maxMs: number;
}

function getText(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', rejectUnauthorized: false, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end();
  });
}

const gauge = (metrics: string, name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN) * 1000;

// monitorEventLoopDelay records the time between its timer's runs, resolution included (an idle loop
// reads ~10 ms at a 10 ms resolution): a stall is what exceeds the resolution.
const SERVER_RESOLUTION_MS = 10; // prom-client's default eventLoopMonitoringPrecision
const OWN_RESOLUTION_MS = 1;
const beyond = (ms: number, resolution: number) => Math.max(0, ms - resolution);

/** The server's event-loop delay since the previous scrape of /metrics (call once before the pass to reset it). */
export async function serverLoopStalls(port: number): Promise<LoopStalls> {
  const metrics = await getText(port, '/metrics');
  return {
    p99Ms: beyond(gauge(metrics, 'nodejs_eventloop_lag_p99_seconds'), SERVER_RESOLUTION_MS),
    maxMs: beyond(gauge(metrics, 'nodejs_eventloop_lag_max_seconds'), SERVER_RESOLUTION_MS),
  };
}

/** Watches this process's event loop from now until the returned function is called. */
export function watchOwnLoop(): () => LoopStalls {
  const histogram = monitorEventLoopDelay({ resolution: OWN_RESOLUTION_MS });
  histogram.enable();
  return () => {
    histogram.disable();
    return { p99Ms: beyond(histogram.percentile(99) / 1e6, OWN_RESOLUTION_MS), maxMs: beyond(histogram.max / 1e6, OWN_RESOLUTION_MS) };
  };
}
