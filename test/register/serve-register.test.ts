// `serve --register`: the server publishes its CA to karmada-apiserver at start and again when the
// serving certificate (and with it the CA) rotates in the cert dir.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/cli/serve.ts';
import { ConfigError, serveConfig } from '../../src/config.ts';
import { generateSelfSigned } from '../../src/server/certificates.ts';
import { startFakeKarmadaApiserver } from '../support/fake-karmada-apiserver.ts';

const until = async (check: () => boolean, ms = 8000) => {
  const end = Date.now() + ms;
  while (Date.now() < end && !check()) await new Promise((r) => setTimeout(r, 50));
  return check();
};

describe('serve --register', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('needs to know how Karmada reaches us, and reads the flags from the environment too', () => {
    expect(() => serveConfig(['--register', '/k'], {})).toThrow(ConfigError);
    expect(() => serveConfig(['--register', '/k'], {})).toThrow(/--register-service or --register-url/);
    expect(() => serveConfig(['--register', '/k', '--register-service', 'ns/svc', '--register-timeout-seconds', '31'], {})).toThrow(/1-30/);
    const config = serveConfig([], { KARMADA_INTERPRETER_REGISTER: '/etc/karmada/kubeconfig', KARMADA_INTERPRETER_REGISTER_SERVICE: 'karmada-system/ts' });
    expect(config.register).toEqual({
      kubeconfig: '/etc/karmada/kubeconfig',
      context: undefined,
      service: 'karmada-system/ts',
      url: undefined,
      caFile: undefined,
      timeoutSeconds: 10,
      name: 'karmada-interpreter-webhook',
      webhookName: 'interpreter.karmada-interpreter-webhook.io',
    });
    expect(serveConfig([], {}).register).toBeUndefined();
    expect(serveConfig(['--register', '/k', '--register-url', 'https://x/interpret', '--register-context', 'karmada'], {}).register?.context).toBe('karmada');
    expect(serveConfig(['--register', '/k', '--register-url', 'https://x/interpret'], { KARMADA_INTERPRETER_REGISTER_CONTEXT: 'karmada-env' }).register?.context).toBe('karmada-env');
  });

  it('registers at start and re-registers with the new CA after the certificate rotates', async () => {
    const api = await startFakeKarmadaApiserver();
    cleanup.push(api.close);
    const dir = await mkdtemp(join(tmpdir(), 'kiw-serve-register-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const first = await generateSelfSigned();
    await writeFile(join(dir, 'ca.crt'), first.caPem);
    await writeFile(join(dir, 'tls.crt'), first.certPem);
    await writeFile(join(dir, 'tls.key'), first.keyPem);

    const server = await startServer(
      serveConfig(['--cert-dir', dir, '--port', '0', '--host', '127.0.0.1', '--log-level', 'silent', '--register', api.kubeconfig, '--register-service', 'karmada-system/ts-interpreter']),
    );
    cleanup.push(server.close);
    const caBundle = () => {
      const stored = api.objects.get('karmada-interpreter-webhook');
      return stored ? Buffer.from(stored.webhooks[0].clientConfig.caBundle, 'base64').toString('utf8') : undefined;
    };
    expect(await until(() => caBundle() === first.caPem)).toBe(true);

    const second = await generateSelfSigned();
    await writeFile(join(dir, 'ca.crt'), second.caPem);
    await writeFile(join(dir, 'tls.key'), second.keyPem);
    await writeFile(join(dir, 'tls.crt'), second.certPem);
    expect(await until(() => caBundle() === second.caPem)).toBe(true);
    expect(api.calls.filter((c) => c.method === 'POST')).toHaveLength(1);
    expect(api.calls.filter((c) => c.method === 'PUT')).toHaveLength(1);
    const metrics = (await server.app.inject('/metrics')).body;
    expect(metrics).toMatch(/karmada_interpreter_registrations_total\{result="created"\} 1/);
    expect(metrics).toMatch(/karmada_interpreter_registrations_total\{result="updated"\} 1/);
  });
});
