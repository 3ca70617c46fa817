import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, parseDuration, parseSize, SERVE_OPTIONS, serveConfig } from '../../src/config.ts';
import { formatGoDuration, parseGoDuration } from '../../src/go/duration.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs();
afterAll(temp.remove);

describe('serve configuration', () => {
  it('has working defaults', () => {
    const c = serveConfig([], {});
    expect(c).toMatchObject({
      port: 8443,
      host: '0.0.0.0',
      logLevel: 'info',
      bodyLimit: 8 * 1024 * 1024,
      inflightBodyLimit: 32 * 1024 * 1024,
      luaTimeoutMs: 1000,
      tlsSans: [],
      customizations: [],
    });
    expect(c.certDir).toBeUndefined();
  });

  it('--serve-with-broken-customizations is off by default, a switch, and read from its variable', () => {
    expect(serveConfig([], {}).serveWithBrokenCustomizations).toBe(false);
    expect(serveConfig(['--serve-with-broken-customizations'], {}).serveWithBrokenCustomizations).toBe(true);
    expect(serveConfig([], { KARMADA_INTERPRETER_SERVE_WITH_BROKEN_CUSTOMIZATIONS: 'true' }).serveWithBrokenCustomizations).toBe(true);
    expect(() => serveConfig([], { KARMADA_INTERPRETER_SERVE_WITH_BROKEN_CUSTOMIZATIONS: 'maybe' })).toThrow(/serve-with-broken-customizations/);
  });

  it('reads every flag from its environment variable, and a flag beats its variable', () => {
    const base = temp.make('kiw-config-');
    const [ric1, ric2, x, y] = ['ric1', 'ric2', 'x', 'y'].map((name) => mkdtempSync(join(base, name)));
    const env = {
      KARMADA_INTERPRETER_PORT: '9443',
      KARMADA_INTERPRETER_HOST: '127.0.0.1',
      KARMADA_INTERPRETER_CERT_DIR: '/certs',
      KARMADA_INTERPRETER_TLS_SAN: 'a.example.com, 10.0.0.1',
      KARMADA_INTERPRETER_CUSTOMIZATIONS: `${ric1},${ric2}`,
      KARMADA_INTERPRETER_EXAMPLES: 'Rollout, ScaledObject.keda.sh',
      KARMADA_INTERPRETER_LOG_LEVEL: 'debug',
      KARMADA_INTERPRETER_BODY_LIMIT: '2MiB',
      KARMADA_INTERPRETER_LUA_TIMEOUT: '500ms',
    };
    expect(serveConfig([], env)).toMatchObject({
      port: 9443,
      host: '127.0.0.1',
      certDir: '/certs',
      tlsSans: ['a.example.com', '10.0.0.1'],
      customizations: [ric1, ric2],
      examples: ['Rollout', 'ScaledObject.keda.sh'],
      logLevel: 'debug',
      bodyLimit: 2 * 1024 * 1024,
      luaTimeoutMs: 500,
    });
    expect(serveConfig(['--port', '1234', '--customizations', x!, '--customizations', y!, '--examples', 'all'], env)).toMatchObject({
      port: 1234,
      customizations: [x, y],
      examples: ['all'],
    });
  });

  it.each([
    [['--port', '70000'], /--port/],
    [['--log-level', 'loud'], /--log-level/],
    [['--body-limit', 'lots'], /--body-limit/],
    [['--tls-cert-file', 'a'], /together/],
    [['--cert-dir', 'd', '--tls-key-file', 'k'], /alternatives/],
    [['--cert-dir', 'd', '--self-signed-dir', 's'], /--self-signed-dir/],
    [['--nope'], /Unknown option/],
    [['--examples', 'Rolout'], /--examples: "Rolout" matches no shipped example \(did you mean Rollout\?\)/],
    [['--register-kinds', 'CloneSet'], /--register-kinds and --register-exclude-kinds go with --register/],
  ])('rejects %j with a message naming the flag', (args, message) => {
    expect(() => serveConfig(args as string[], {})).toThrow(ConfigError);
    expect(() => serveConfig(args as string[], {})).toThrow(message as RegExp);
  });

  it('parses sizes and durations', () => {
    expect(parseSize('8MiB', 'x')).toBe(8388608);
    expect(parseSize('512KiB', 'x')).toBe(524288);
    expect(parseSize('1000000', 'x')).toBe(1000000);
    expect(parseDuration('2m', 'x')).toBe(120000);
    expect(parseDuration('1.5s', 'x')).toBe(1500);
  });
});

describe('serve and the container memory limit (decision 0017)', () => {
  const MiB = 1024 * 1024;
  const limit = (mib: number) => () => ({ bytes: mib * MiB, file: '/sys/fs/cgroup/memory.max' });

  it('--lua-workers auto is marked as such, a number is explicit', () => {
    expect(serveConfig([], {}).luaWorkersAuto).toBe(true);
    expect(serveConfig([], { KARMADA_INTERPRETER_LUA_WORKERS: 'auto' }).luaWorkersAuto).toBe(true);
    expect(serveConfig(['--lua-workers', '2'], {}).luaWorkersAuto).toBe(false);
  });

  it('marks --lua-memory-limit and --max-connections left at their defaults, which may be lowered to fit', () => {
    expect(serveConfig([], {}).defaulted).toEqual({ luaMemoryLimit: true, maxConnections: true });
    expect(serveConfig(['--lua-memory-limit', '64MiB'], {}).defaulted).toEqual({ luaMemoryLimit: false, maxConnections: true });
    expect(serveConfig([], { KARMADA_INTERPRETER_MAX_CONNECTIONS: '100' }).defaulted).toEqual({ luaMemoryLimit: true, maxConnections: false });
  });

  it('refuses an explicit configuration the limit cannot hold: exit 2, naming the numbers and what to change', async () => {
    const { run } = await import('../../src/cli/serve.ts');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const code = await run(['--lua-workers', '4', '--lua-memory-limit', '64MiB', '--max-connections', '1024'], limit(768));
      expect(code).toBe(2);
      const text = stderr.mock.calls.map((call) => String(call[0])).join('');
      expect(text).toMatch(/^serve: the configuration can take 1303 MiB: .*the customization load worker 128 MiB .*--lua-workers 4 × 240 MiB/);
      expect(text).toContain("the container's memory limit is 768 MiB (/sys/fs/cgroup/memory.max)");
      expect(text).toContain('Give one of: --lua-workers 1, or a memory limit of at least 1303 MiB');
    } finally {
      stderr.mockRestore();
    }
  });
});

// Go's time.ParseDuration (golang/go src/time/format.go) is what Kubernetes components and Karmada's
// ?timeout= use; every duration flag takes the same syntax.
describe('duration flags take Go durations', () => {
  const durationFlags = SERVE_OPTIONS.filter((o) => ['body-idle-timeout', 'lua-timeout', 'shutdown-delay', 'shutdown-timeout'].includes(o.flag));

  it('knows every duration flag of serve', () => {
    // Every option whose default is a duration is one of the flags parsed here.
    const withDurationDefaults = SERVE_OPTIONS.filter((o) => o.default !== undefined && parseGoDuration(o.default) !== undefined && !/^\d+$/.test(o.default));
    expect(withDurationDefaults.map((o) => o.flag).sort()).toEqual(durationFlags.map((o) => o.flag).sort());
  });

  it.each([
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['500ms', 500],
    ['1.5s', 1500],
    ['.5s', 500],
    ['2h45m0.5s', 9_900_500],
    ['1500us', 1.5],
    ['0', 0],
  ])('%s is %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms);
    expect(serveConfig(['--shutdown-delay', text], {}).shutdownDelayMs).toBeCloseTo(ms);
  });

  it('reads them from flags and environment variables alike', () => {
    const config = serveConfig(['--shutdown-timeout=1m30s'], {
      KARMADA_INTERPRETER_LUA_TIMEOUT: '1.5s',
      KARMADA_INTERPRETER_SHUTDOWN_DELAY: '1h',
      KARMADA_INTERPRETER_SHUTDOWN_TIMEOUT: '5s',
    });
    expect(config).toMatchObject({ luaTimeoutMs: 1500, shutdownDelayMs: 3_600_000, shutdownTimeoutMs: 90_000 });
  });

  it.each([
    ['lua-timeout', '10', /not a duration \(Go syntax/],
    ['lua-timeout', '1x', /not a duration/],
    ['lua-timeout', '-1s', /not a duration/],
    ['lua-timeout', '1 s', /not a duration/],
    ['lua-timeout', '.s', /not a duration/],
    ['lua-timeout', '0s', /longer than 0s/],
    ['shutdown-delay', '1000h', /too long \(at most 596h31m23\.647s\)/],
    ['shutdown-timeout', '', /not a duration/],
  ])('--%s %j is refused with a message naming the flag', (flag, text, message) => {
    expect(() => serveConfig([`--${flag}=${text}`], {})).toThrow(ConfigError);
    expect(() => serveConfig([`--${flag}=${text}`], {})).toThrow(new RegExp(`--${flag}: .*${message.source}`));
  });

  it('formats durations the way Go prints them', () => {
    expect([0, 500, 1500, 90_000, 3_600_000, 9_900_500].map(formatGoDuration)).toEqual(['0s', '500ms', '1.5s', '1m30s', '1h0m0s', '2h45m0.5s']);
  });
});
