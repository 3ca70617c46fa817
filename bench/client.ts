// The benchmark's client: N keep-alive HTTPS connections, each sending requests one after another (as
// Karmada's client does per call), and the server's CPU read from /proc before and after the batch.
import type { Agent } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuTicks } from './process-stats.ts';
import { keepAliveAgent, post } from './servers.ts';

export interface Batch {
  requests: number;
  /** Round trip of every request (ms). */
  times: number[];
  wallMs: number;
  /** The server's utime + stime over the batch, in clock ticks. */
  cpuTicks: number;
}

/** `count` keep-alive connections (one agent of one socket each). */
export function connections(count: number): Agent[] {
  return Array.from({ length: count }, () => keepAliveAgent());
}

/**
 * Sends the request on every connection concurrently, each connection one request at a time, until
 * `minRequests` have been sent and `minMs` have passed. The server's CPU is read `settleMs` after the
 * previous traffic and again `settleMs` after the last answer, so the work of a request that follows its
 * answer (the log line, a collection) falls in its batch.
 */
export async function batch(options: {
  pid: number;
  port: number;
  path: string;
  body: string;
  agents: Agent[];
  minRequests: number;
  minMs?: number;
  settleMs?: number;
  check: (status: number, text: string) => void;
}): Promise<Batch> {
  const { pid, port, path, body, agents, minRequests, minMs = 0, settleMs = 100, check } = options;
  await sleep(settleMs);
  const ticksBefore = cpuTicks(pid);
  const started = performance.now();
  const times: number[] = [];
  let sent = 0;
  const loop = async (agent: Agent) => {
    while (sent < minRequests || performance.now() - started < minMs) {
      sent++;
      const t0 = performance.now();
      const { status, text } = await post(port, path, body, agent);
      times.push(performance.now() - t0);
      check(status, text);
    }
  };
  await Promise.all(agents.map(loop));
  const wallMs = performance.now() - started;
  await sleep(settleMs);
  return { requests: times.length, times, wallMs, cpuTicks: cpuTicks(pid) - ticksBefore };
}
