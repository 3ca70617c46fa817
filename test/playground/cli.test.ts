// `karmada-interpreter playground`: its usage errors stop it before anything starts (exit 2).
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.ts';

describe('playground command', () => {
  it('explains itself', async () => {
    const help = await cli(['playground', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('127.0.0.1');
    expect((await cli(['--help'])).stdout).toMatch(/^ {2}playground {6}/m);
  });

  it.each([
    [['--port', 'eighty'], '--port eighty: expected 0-65535'],
    [['--port', '70000'], '--port 70000: expected 0-65535'],
    [['--karmada-customizations', '/nonexistent/karmada'], '--karmada-customizations /nonexistent/karmada: no such file or directory'],
    [['--customizations', '/nonexistent/ric'], '--customizations /nonexistent/ric: no such file or directory'],
    [['--lua-timeout-ms', '0'], '--lua-timeout-ms 0: expected a whole number > 0'],
    [['--colour'], "Unknown option '--colour'"],
  ])('refuses %j', async (args, message) => {
    const result = await cli(['playground', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
