// `serve --register`: the server publishes its CA to karmada-apiserver at start and again when the
// serving certificate (and with it the CA) rotates in the cert dir.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { startServing as startServer } from '../../src/server/start.ts';
import { ConfigError, serveConfig } from '../../src/config.ts';
import { generateSelfSigned } from '../../src/server/certificates.ts';
import { startFakeKarmadaApiserver } from '../support/fake-karmada-apiserver.ts';

const until = async (check: () => boolean | Promise<boolean>, ms = 8000) => {
  const end = Date.now() + ms;
  while (Date.now() < end && !(await check())) await new Promise((r) => setTimeout(r, 50));
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
    expect(
      serveConfig(['--register', '/k', '--register-url', 'https://x/interpret'], { KARMADA_INTERPRETER_REGISTER_CONTEXT: 'karmada-env' }).register?.context,
    ).toBe('karmada-env');
  });

  it('registers at start through --register-context and re-registers with the new CA after the certificate rotates', async () => {
    const api = await startFakeKarmadaApiserver();
    cleanup.push(api.close);
    const dir = await mkdtemp(join(tmpdir(), 'kiw-serve-register-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    // The kubeconfig's current-context is not karmada-apiserver: the flag picks it.
    const kubeconfig = join(dir, 'kubeconfig');
    const original = parse(await readFile(api.kubeconfig, 'utf8'));
    original.clusters.push({ name: 'host', cluster: { server: 'https://127.0.0.1:1' } });
    original.contexts.push({ name: 'host', context: { cluster: 'host', user: 'karmada-admin' } });
    original['current-context'] = 'host';
    await writeFile(kubeconfig, stringify(original));
    const first = await generateSelfSigned();
    await writeFile(join(dir, 'ca.crt'), first.caPem);
    await writeFile(join(dir, 'tls.crt'), first.certPem);
    await writeFile(join(dir, 'tls.key'), first.keyPem);

    const server = await startServer(
      serveConfig([
        '--cert-dir',
        dir,
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--log-level',
        'silent',
        '--register',
        kubeconfig,
        '--register-context',
        'karmada-apiserver',
        '--register-service',
        'karmada-system/ts-interpreter',
      ]),
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
    // Server-side apply each time, never create/replace.
    expect(api.calls.filter((c) => c.path.includes('resourceinterpreterwebhookconfigurations')).map((c) => c.method)).toEqual(['GET', 'PATCH', 'GET', 'PATCH']);
    // The outcome is counted once the apply (and the precedence check after it) has answered.
    const metrics = async () => (await server.app.inject('/metrics')).body;
    expect(await until(async () => /karmada_interpreter_registrations_total\{result="updated"\} 1/.test(await metrics()))).toBe(true);
    expect(await metrics()).toMatch(/karmada_interpreter_registrations_total\{result="created"\} 1/);
  });
});
