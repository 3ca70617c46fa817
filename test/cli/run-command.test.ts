// How a command's failure reaches the user: a usage error (exit 2) only for what the user typed, a
// defect with its stack (exit 1), any other error as one line (exit 1).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { asUsageError, runCommand, UsageError } from '../../src/cli/common.ts';

const enoent = (path: string) => Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT', path });

describe('asUsageError', () => {
  it('treats a missing file the user named as a usage error, typed or as --flag=PATH', () => {
    expect(asUsageError(enoent('objects/cs.yaml'), ['interpret', 'objects/cs.yaml'])).toBeInstanceOf(UsageError);
    expect(asUsageError(enoent(`${process.cwd()}/objects/cs.yaml`), ['interpret', './objects/cs.yaml'])).toBeInstanceOf(UsageError);
    expect(asUsageError(enoent('ca.pem'), ['webhook-config', '--ca-bundle-file=ca.pem'])).toBeInstanceOf(UsageError);
  });

  it('does not blame the user for a missing file they did not name', () => {
    expect(asUsageError(enoent('/opt/app/interpreters/x/customizations.yaml'), ['interpret', 'objects/cs.yaml'])).toBeUndefined();
  });
});

describe('runCommand', () => {
  let stderr = '';
  afterEach(() => vi.restoreAllMocks());
  const capture = () => {
    stderr = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  };

  it('prints the stack of a defect, so a bug report carries it', async () => {
    capture();
    const code = await runCommand('interpret', undefined, async () => {
      const value: any = undefined;
      return value.kind;
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^interpret: TypeError: .*\n\s+at /);
  });

  it('prints one line for an ordinary failure', async () => {
    capture();
    const code = await runCommand('register', undefined, async () => {
      throw new Error('https://karmada-apiserver:5443: connection refused');
    });
    expect(code).toBe(1);
    expect(stderr).toBe('register: https://karmada-apiserver:5443: connection refused\n');
  });
});
