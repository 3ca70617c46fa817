// Starting and stopping what the benchmark measures: a server as a child process (`node <cli> serve`,
// logging to a file as in a container) and the bare node:https baseline.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RunningServer {
  name: string;
  port: number;
  pid: number;
  logFile?: string;
  stop(): Promise<void>;
}

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

/** Starts `node <cli> serve` and resolves once /readyz answers 200, with the time that took. */
export async function startChildServer(options: { name: string; cli: string; args: string[]; logFile: string }): Promise<RunningServer & { readyMs: number }> {
  const started = performance.now();
  const logFd = openSync(options.logFile, 'w');
  const port = await freePort();
  const child = spawn(process.execPath, [options.cli, 'serve', '--port', String(port), '--host', '127.0.0.1', ...options.args], {
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${options.name} exited with ${child.exitCode}; see ${options.logFile}`);
    if ((await get(port, '/readyz').catch(() => 0)) === 200) {
      return { name: options.name, port, pid: child.pid!, logFile: options.logFile, readyMs: performance.now() - started, stop: () => stopChild(child) };
    }
    await sleep(5);
  }
  await stopChild(child);
  throw new Error(`${options.name} not ready within 30 s; see ${options.logFile}`);
}

export async function startBaseline(certFile: string, keyFile: string, sizesFile: string): Promise<RunningServer> {
  const child = fork('bench/baseline-server.ts', [certFile, keyFile, sizesFile], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  return { name: 'baseline', port, pid: child.pid!, stop: () => stopChild(child) };
}

/** One keep-alive connection, as Karmada's client keeps one per webhook host (no certificate check: loopback, our own certificate). */
export function keepAliveAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
}

/** One HTTPS POST. */
export function post(port: number, path: string, body: string, agent?: Agent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, rejectUnauthorized: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', rejectUnauthorized: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}
