import { describe, expect, it } from 'vitest';
import { ConfigError, parseDuration, parseSize, serveConfig } from '../../src/config.ts';

describe('serve configuration', () => {
  it('has working defaults', () => {
    const c = serveConfig([], {});
    expect(c).toMatchObject({ port: 8443, host: '0.0.0.0', logLevel: 'info', bodyLimit: 8 * 1024 * 1024, inflightBodyLimit: 32 * 1024 * 1024, luaTimeoutMs: 1000, tlsSans: [], customizations: [] });
    expect(c.certDir).toBeUndefined();
  });

  it('reads every flag from its environment variable, and a flag beats its variable', () => {
    const env = {
      KARMADA_INTERPRETER_PORT: '9443',
      KARMADA_INTERPRETER_HOST: '127.0.0.1',
      KARMADA_INTERPRETER_CERT_DIR: '/certs',
      KARMADA_INTERPRETER_TLS_SAN: 'a.example.com, 10.0.0.1',
      KARMADA_INTERPRETER_CUSTOMIZATIONS: '/ric1,/ric2',
      KARMADA_INTERPRETER_LOG_LEVEL: 'debug',
      KARMADA_INTERPRETER_BODY_LIMIT: '2MiB',
      KARMADA_INTERPRETER_LUA_TIMEOUT: '500ms',
    };
    expect(serveConfig([], env)).toMatchObject({ port: 9443, host: '127.0.0.1', certDir: '/certs', tlsSans: ['a.example.com', '10.0.0.1'], customizations: ['/ric1', '/ric2'], logLevel: 'debug', bodyLimit: 2 * 1024 * 1024, luaTimeoutMs: 500 });
    expect(serveConfig(['--port', '1234', '--customizations', '/x', '--customizations', '/y'], env)).toMatchObject({ port: 1234, customizations: ['/x', '/y'] });
  });

  it.each([
    [['--port', '70000'], /--port/],
    [['--log-level', 'loud'], /--log-level/],
    [['--body-limit', 'lots'], /--body-limit/],
    [['--tls-cert-file', 'a'], /together/],
    [['--cert-dir', 'd', '--tls-key-file', 'k'], /alternatives/],
    [['--cert-dir', 'd', '--self-signed-dir', 's'], /--self-signed-dir/],
    [['--nope'], /Unknown option/],
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
