// Start-up time to ready: spawn `node dist/src/cli.js serve --port 0` with the given certificate flags
// and poll /readyz until it answers 200.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI, get } from './servers.ts';

export interface StartupResult {
  /** From spawn to the first 200 from /readyz, as a kubelet probe would see it. */
  readyMs: number;
  /** What the server logs itself: from its process start (Node's time origin) to listening. */
  loggedReadyMs: number;
}

export async function measureStartup(extraArgs: string[] = []): Promise<StartupResult> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--host', '127.0.0.1', ...extraArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let output = '';
    const serving = new Promise<{ port: number; readyMs: number }>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const line = output.split('\n').find((l) => l.includes('"msg":"serving"'));
        if (line) resolve(JSON.parse(line) as { port: number; readyMs: number });
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code} before serving:\n${output}`)));
    });
    const { port, readyMs: loggedReadyMs } = await serving;
    for (;;) {
      const status = await get(port, '/readyz').catch(() => 0);
      if (status === 200) return { readyMs: performance.now() - started, loggedReadyMs };
      if (performance.now() - started > 30_000) throw new Error('not ready within 30 s');
      await sleep(2);
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
  }
}
