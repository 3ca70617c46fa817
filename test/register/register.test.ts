// `register` and the Registrar against a loopback fake of karmada-apiserver (test/support): the real
// @kubernetes/client-node client, kubeconfig, TLS and bearer token, and the real create/update logic.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as register } from '../../src/cli/register.ts';
import { webhookConfiguration } from '../../src/cli/webhook-config.ts';
import { createRegistry } from '../../src/interpreter/setup.ts';
import { Registrar } from '../../src/register/registrar.ts';
import { generateSelfSigned } from '../../src/server/certificates.ts';
import { startFakeKarmadaApiserver, type FakeKarmadaApiserver } from '../support/fake-karmada-apiserver.ts';

const NAME = 'karmada-interpreter-webhook';

async function certDir(files: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'kiw-register-'));
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
  return dir;
}

async function runQuiet(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true));
  try {
    return { code: await register(args), stdout: out.join(''), stderr: err.join('') };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}

const caOf = (object: any) => Buffer.from(object.webhooks[0].clientConfig.caBundle, 'base64').toString('utf8');

describe('register', () => {
  let api: FakeKarmadaApiserver;
  const dirs: string[] = [];
  beforeAll(async () => {
    api = await startFakeKarmadaApiserver();
  });
  afterAll(async () => {
    await api.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('creates the configuration with the CA from the cert-manager Secret, leaves it alone when current, updates it after the CA rotates', async () => {
    const first = await generateSelfSigned(['ts-interpreter.karmada-system.svc']);
    const dir = await certDir({ 'tls.crt': first.certPem, 'tls.key': first.keyPem, 'ca.crt': first.caPem });
    dirs.push(dir);
    const args = ['--kubeconfig', api.kubeconfig, '--service', 'karmada-system/ts-interpreter', '--cert-dir', dir, '--timeout-seconds', '5'];

    const created = await runQuiet(args);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(`resourceinterpreterwebhookconfiguration.config.karmada.io/${NAME} created (caBundle from ${join(dir, 'ca.crt')})`);
    const stored = api.objects.get(NAME);
    expect(caOf(stored)).toBe(first.caPem);
    // Rules are exactly what webhook-config prints for the registry.
    const loaded = await createRegistry();
    const expected = webhookConfiguration(loaded.registry.served(), { service: 'karmada-system/ts-interpreter', caBundle: first.caPem, timeoutSeconds: 5 }) as any;
    loaded.close();
    expect(stored.webhooks).toEqual(expected.webhooks);
    expect(stored.webhooks[0].clientConfig.service).toEqual({ namespace: 'karmada-system', name: 'ts-interpreter', path: '/interpret', port: 443 });

    // Someone labels it; a second run with nothing new does not write.
    stored.metadata.labels = { team: 'platform' };
    const writesBefore = api.calls.filter((c) => c.method !== 'GET').length;
    const unchanged = await runQuiet(args);
    expect(unchanged.code).toBe(0);
    expect(unchanged.stdout).toMatch(/ unchanged /);
    expect(api.calls.filter((c) => c.method !== 'GET').length).toBe(writesBefore);

    // cert-manager rotated the CA: the update carries the new bundle and the resourceVersion it read, and keeps the label.
    const second = await generateSelfSigned(['ts-interpreter.karmada-system.svc']);
    await writeFile(join(dir, 'ca.crt'), second.caPem);
    const versionBefore = api.objects.get(NAME).metadata.resourceVersion;
    const updated = await runQuiet(args);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toMatch(/ updated /);
    const put = api.calls.filter((c) => c.method === 'PUT').at(-1)!;
    expect(put.path).toBe(`/apis/config.karmada.io/v1alpha1/resourceinterpreterwebhookconfigurations/${NAME}`);
    expect(put.body.metadata.resourceVersion).toBe(versionBefore);
    expect(caOf(api.objects.get(NAME))).toBe(second.caPem);
    expect(api.objects.get(NAME).metadata.labels).toEqual({ team: 'platform' });
  });

  it('uses the serving certificate itself when there is no ca.crt, and an explicit --ca-file over both', async () => {
    const certs = await generateSelfSigned();
    const dir = await certDir({ 'tls.crt': certs.certPem, 'tls.key': certs.keyPem, 'other-ca.pem': certs.caPem });
    dirs.push(dir);
    const base = ['--kubeconfig', api.kubeconfig, '--url', 'https://interpreter.example.com/interpret', '--name', 'from-cert'];
    expect((await runQuiet([...base, '--tls-cert-file', join(dir, 'tls.crt')])).code).toBe(0);
    expect(caOf(api.objects.get('from-cert'))).toBe(certs.certPem);
    expect((await runQuiet([...base, '--tls-cert-file', join(dir, 'tls.crt'), '--ca-file', join(dir, 'other-ca.pem')])).code).toBe(0);
    expect(caOf(api.objects.get('from-cert'))).toBe(certs.caPem);
  });

  it('explains failures: missing CA or kubeconfig (usage, exit 2), a CA file without certificates, an API error (exit 1)', async () => {
    const noCa = await runQuiet(['--kubeconfig', api.kubeconfig, '--service', 'karmada-system/x']);
    expect(noCa.code).toBe(2);
    expect(noCa.stderr).toMatch(/--ca-file, --cert-dir or --tls-cert-file/);
    const previous = process.env.KUBECONFIG;
    delete process.env.KUBECONFIG;
    const noKubeconfig = await runQuiet(['--service', 'karmada-system/x', '--ca-file', '/nonexistent']);
    if (previous !== undefined) process.env.KUBECONFIG = previous;
    expect(noKubeconfig.code).toBe(2);
    expect(noKubeconfig.stderr).toMatch(/--kubeconfig is required/);

    const dir = await certDir({ 'junk.pem': 'not a certificate\n' });
    dirs.push(dir);
    const junk = await runQuiet(['--kubeconfig', api.kubeconfig, '--service', 'karmada-system/x', '--ca-file', join(dir, 'junk.pem')]);
    expect(junk.code).toBe(1);
    expect(junk.stderr).toMatch(/junk\.pem holds no PEM certificate/);

    const certs = await generateSelfSigned();
    await writeFile(join(dir, 'ca.pem'), certs.caPem);
    api.failNext(403);
    const forbidden = await runQuiet(['--kubeconfig', api.kubeconfig, '--service', 'karmada-system/x', '--ca-file', join(dir, 'ca.pem'), '--name', 'denied']);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(/karmada-apiserver answered HTTP 403 for ResourceInterpreterWebhookConfiguration denied: injected failure 403 .*register-rbac\.yaml/);
    expect(api.objects.has('denied')).toBe(false);
  });

  it('Registrar retries after failures with backoff and re-applies on refresh', async () => {
    const certs = await generateSelfSigned();
    const dir = await certDir({ 'tls.crt': certs.certPem, 'ca.crt': certs.caPem });
    dirs.push(dir);
    const loaded = await createRegistry();
    const results: string[] = [];
    const registrar = new Registrar(
      () => loaded.registry.served(),
      { kubeconfig: api.kubeconfig, service: 'karmada-system/ts-interpreter', certFile: join(dir, 'tls.crt'), name: 'with-retries' },
      pino({ level: 'silent' }),
      { backoffMs: 50, maxBackoffMs: 100, resyncMs: 60_000 },
      (r) => results.push(r),
    );
    try {
      api.failNext(500, 2);
      await registrar.refresh('start');
      const deadline = Date.now() + 5000;
      // Wait for the outcome on our side (the fake stores the object before the client has its answer).
      while (!results.includes('created') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(results.slice(0, 3)).toEqual(['error', 'error', 'created']);
      expect(caOf(api.objects.get('with-retries'))).toBe(certs.caPem);

      const rotated = await generateSelfSigned();
      await writeFile(join(dir, 'ca.crt'), rotated.caPem);
      await registrar.refresh('certificate rotated');
      expect(results.at(-1)).toBe('updated');
      expect(caOf(api.objects.get('with-retries'))).toBe(rotated.caPem);
    } finally {
      registrar.close();
      loaded.close();
    }
  });
});
