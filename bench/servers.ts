// Starting and stopping what the benchmark measures: our server as a child process (`node
// dist/src/cli.js serve`, logs to a file as in a container), the baseline child, and our server inside
// the benchmark process (to show what sharing one event loop with the load generator costs).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';

export interface RunningServer {
  name: string;
  port: number;
  /** Process ids whose memory and CPU count (the benchmark's own pid for the in-process server). */
  pids: number[];
  stop(): Promise<void>;
}

export const CLI = 'dist/src/cli.js';

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Waits until a JSON line containing `marker` appears in the log file; returns its port. */
async function portFromLog(child: ChildProcess, logFile: string, marker: string): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}; see ${logFile}`);
    const line = readFileSync(logFile, 'utf8').split('\n').find((l) => l.includes(marker));
    if (line) return (JSON.parse(line) as { port: number }).port;
    await sleep(5);
  }
  throw new Error(`server did not start within 30 s; see ${logFile}`);
}

export interface ChildServerOptions {
  name: string;
  certFile: string;
  keyFile: string;
  logFile: string;
  extraArgs?: string[];
  /** Run `serve` in this many processes sharing the port (node:cluster, bench/cluster-serve.ts). */
  processes?: number;
}

/** A port that was free a moment ago (so readiness can be polled whatever the log level). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function untilReady(child: ChildProcess, port: number, logFile: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}; see ${logFile}`);
    if ((await get(port, '/readyz').catch(() => 0)) === 200) return;
    await sleep(10);
  }
  throw new Error(`server not ready within 30 s; see ${logFile}`);
}

export async function startChildServer(options: ChildServerOptions): Promise<RunningServer> {
  const logFd = openSync(options.logFile, 'w');
  const clustered = (options.processes ?? 1) > 1;
  const port = clustered ? 0 : await freePort();
  const serveArgs = ['serve', '--port', String(port), '--host', '127.0.0.1', '--tls-cert-file', options.certFile, '--tls-key-file', options.keyFile, ...(options.extraArgs ?? [])];
  const args = clustered ? ['bench/cluster-serve.ts', String(options.processes), ...serveArgs] : [CLI, ...serveArgs];
  const nodeOptions = process.env.BENCH_SERVER_NODE_OPTIONS;
  const env = nodeOptions ? { ...process.env, NODE_OPTIONS: nodeOptions } : process.env;
  const child = spawn(process.execPath, args, { stdio: ['ignore', logFd, logFd], env });
  closeSync(logFd);
  if (clustered) {
    const clusterPort = await portFromLog(child, options.logFile, '"msg":"cluster serving"');
    return { name: options.name, port: clusterPort, pids: clusterPids(child.pid!), stop: () => stopChild(child) };
  }
  await untilReady(child, port, options.logFile);
  return { name: options.name, port, pids: [child.pid!], stop: () => stopChild(child) };
}

/** The primary and its workers (children listed by the kernel). */
function clusterPids(primary: number): number[] {
  const children = readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return [primary, ...children];
}

export async function startBaseline(certFile: string, keyFile: string, sizesFile: string): Promise<RunningServer> {
  const child = fork('bench/baseline-server.ts', [certFile, keyFile, sizesFile], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  return { name: 'baseline', port, pids: [child.pid!], stop: () => stopChild(child) };
}

/** Our app in this process, built from dist like the child, logging to a file like the child. */
export async function startInProcessServer(cert: string, key: string, logFile: string): Promise<RunningServer> {
  const { createRegistry } = (await import(join(process.cwd(), 'dist/src/interpreter/setup.js'))) as typeof import('../src/interpreter/setup.ts');
  const { buildApp } = (await import(join(process.cwd(), 'dist/src/server/app.js'))) as typeof import('../src/server/app.ts');
  const loaded = await createRegistry();
  const logger = pino({ level: 'info' }, pino.destination({ dest: logFile, sync: true }));
  const app = buildApp({ registry: loaded.registry, logger, https: { cert, key } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    name: 'in-process',
    port,
    pids: [process.pid],
    async stop() {
      await app.close();
      loaded.close();
    },
  };
}

/** One HTTPS request (no certificate check: only used on loopback against our own certificate). */
export function post(port: number, path: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', rejectUnauthorized: false, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}
