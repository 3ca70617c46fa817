// Runs the real CLI (`node src/cli.ts serve ...`) as a child process with a cert dir,
// learns its port from the 'serving' log line, and offers HTTPS helpers that trust its CA. For the
// tests that need real signals and a real process exit (graceful shutdown).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateSelfSigned } from '../../src/server/certificates.ts';

const ROOT = resolve(import.meta.dirname, '../..');

export interface SpawnedServer {
  child: ChildProcess;
  port: number;
  ca: string;
  certDir: string;
  /** Parsed JSON log lines so far. */
  logs: Array<Record<string, any>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  stop(): Promise<void>;
}

export async function spawnServer(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<SpawnedServer> {
  const certDir = await mkdtemp(join(tmpdir(), 'kiw-spawned-'));
  const certs = await generateSelfSigned();
  await writeFile(join(certDir, 'tls.crt'), certs.certPem);
  await writeFile(join(certDir, 'tls.key'), certs.keyPem);
  const child = spawn(process.execPath, ['src/cli.ts', 'serve', '--port', '0', '--host', '127.0.0.1', '--cert-dir', certDir, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, any>> = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolveExit) =>
    child.on('exit', (code, signal) => resolveExit({ code, signal, at: performance.now() })),
  );
  const port = await new Promise<number>((resolvePort, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`server did not start in 60 s; stderr: ${stderr}`)), 60_000);
    child.stdout!.on('data', (chunk) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        try {
          const entry = JSON.parse(line);
          logs.push(entry);
          if (entry.msg === 'serving') {
            clearTimeout(timer);
            resolvePort(entry.port);
          }
        } catch {
          // not a log line
        }
      }
    });
    void exited.then(({ code }) => reject(new Error(`server exited (${code}) before serving; stderr: ${stderr}`)));
  });
  return {
    child,
    port,
    ca: certs.caPem,
    certDir,
    logs,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      await rm(certDir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTPS request; `writeBody` may stream the body slowly. */
export function send(
  server: { port: number; ca: string },
  options: { method?: string; path: string; body?: string; agent?: Agent | false; writeBody?: (write: (chunk: string) => void, end: () => void) => void },
): Promise<Answer> {
  return new Promise((resolveAnswer, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        servername: 'localhost',
        ca: server.ca,
        method: options.method ?? (options.body !== undefined || options.writeBody ? 'POST' : 'GET'),
        path: options.path,
        agent: options.agent ?? false,
        headers: options.body !== undefined || options.writeBody ? { 'content-type': 'application/json' } : {},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolveAnswer({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.writeBody)
      options.writeBody(
        (chunk) => req.write(chunk),
        () => req.end(),
      );
    else req.end(options.body);
  });
}
