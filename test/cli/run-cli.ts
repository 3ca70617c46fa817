// Runs the CLI's entry point in this process, as `karmada-interpreter ARGS` would run: what the command
// writes to stdout and stderr is captured, and an error escaping the command is reported as src/cli.ts
// reports it (exit code 1). In-process keeps the CLI tests fast; test/integration starts real processes.
import { main } from '../../src/cli/main.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function cli(args: string[]): Promise<CliResult> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const writeOut = process.stdout.write;
  const writeErr = process.stderr.write;
  const capture = (into: string[]) =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = capture(stdout);
  process.stderr.write = capture(stderr);
  let code: number;
  try {
    code = await main(args);
  } catch (error) {
    stderr.push(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    code = 1;
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
  }
  return { code, stdout: stdout.join(''), stderr: stderr.join('') };
}
