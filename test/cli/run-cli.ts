// Runs the real CLI from its TypeScript sources in a child process (Node runs them directly: no build step).
import { spawnSync } from 'node:child_process';

export function cli(args: string[], input?: string) {
  const result = spawnSync(process.execPath, ['src/cli.ts', ...args], {
    encoding: 'utf8',
    input,
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
