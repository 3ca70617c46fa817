// `register` and the Registrar against a loopback fake of karmada-apiserver (test/support): the real
// @kubernetes/client-node client, kubeconfig loading, TLS and bearer token, and server-side apply as
// the fake checks it (method, content type, field manager, force, whole-object body).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as register } from '../../src/cli/register.ts';
import { webhookConfiguration } from '../../src/cli/webhook-config.ts';
import { createRegistry } from '../../src/interpreter/setup.ts';
import { FIELD_MANAGER } from '../../src/register/apply.ts';
import { Registrar } from '../../src/register/registrar.ts';
import { generateSelfSigned } from '../../src/server/certificates.ts';
import { APPLY_PATCH_CONTENT_TYPE, startFakeKarmadaApiserver, type FakeKarmadaApiserver } from '../support/fake-karmada-apiserver.ts';

const NAME = 'karmada-interpreter-webhook';
const PATH = `/apis/config.karmada.io/v1alpha1/resourceinterpreterwebhookconfigurations/${NAME}`;

async function tempDir(files: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'kiw-register-'));
  for (const [file, text] of Object.entries(files)) {
    await mkdir(join(dir, file, '..'), { recursive: true });
    await writeFile(join(dir, file), text);
  }
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

/** A RIC as a user would have applied it to karmada-apiserver. */
const ric = (name: string, apiVersion: string, kind: string, scripts: Record<string, string>) => ({
  apiVersion: 'config.karmada.io/v1alpha1',
  kind: 'ResourceInterpreterCustomization',
  metadata: { name },
  spec: { target: { apiVersion, kind }, customizations: Object.fromEntries(Object.entries(scripts).map(([field, luaScript]) => [field, { luaScript }])) },
});

describe('register', () => {
  let api: FakeKarmadaApiserver;
  const dirs: string[] = [];
  beforeAll(async () => {
    api = await startFakeKarmadaApiserver();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    api.customizations.clear();
    api.forbidCustomizations = false;
  });
  afterAll(async () => {
    await api.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('server-side applies the configuration with the CA from the cert-manager Secret; keeps what others own; takes the webhooks back from an edit', async () => {
    const first = await generateSelfSigned(['ts-interpreter.karmada-system.svc']);
    const dir = await tempDir({ 'tls.crt': first.certPem, 'tls.key': first.keyPem, 'ca.crt': first.caPem });
    dirs.push(dir);
    const args = ['--kubeconfig', api.kubeconfig, '--service', 'karmada-system/ts-interpreter', '--cert-dir', dir, '--timeout-seconds', '5'];

    const created = await runQuiet(args);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toBe(
      `resourceinterpreterwebhookconfiguration.config.karmada.io/${NAME} created (context karmada-apiserver, caBundle from ${join(dir, 'ca.crt')})\n`,
    );
    // The apply request is what `kubectl apply --server-side --force-conflicts --field-manager karmada-interpreter-webhook` sends.
    const applies = api.calls.filter((c) => c.method === 'PATCH');
    expect(applies).toHaveLength(1);
    const apply = applies[0]!;
    expect(apply.path).toBe(PATH);
    expect(apply.contentType).toBe(APPLY_PATCH_CONTENT_TYPE);
    expect(apply.query).toEqual({ fieldManager: FIELD_MANAGER, force: 'true' });
    const loaded = await createRegistry();
    const expected = webhookConfiguration(loaded.registry.served(), {
      service: 'karmada-system/ts-interpreter',
      caBundle: first.caPem,
      timeoutSeconds: 5,
    }) as any;
    loaded.close();
    expect(apply.body).toEqual(expected); // the whole object, and nothing else (no resourceVersion, status or managedFields)
    expect(apply.status).toBe(201);
    expect(api.calls.filter((c) => !['GET', 'PATCH'].includes(c.method))).toEqual([]);
    const stored = api.objects.get(NAME);
    expect(caOf(stored)).toBe(first.caPem);
    expect(stored.webhooks[0].clientConfig.service).toEqual({ namespace: 'karmada-system', name: 'ts-interpreter', path: '/interpret', port: 443 });
    expect(api.owners(NAME)).toEqual({ '.webhooks': [FIELD_MANAGER] });

    // Someone labels it; a second run with nothing new changes nothing and keeps the label.
    api.edit(NAME, 'kubectl-label', (o) => (o.metadata.labels = { team: 'platform' }));
    const versionLabelled = api.objects.get(NAME).metadata.resourceVersion;
    const unchanged = await runQuiet(args);
    expect(unchanged.code).toBe(0);
    expect(unchanged.stdout).toMatch(/ unchanged \(/);
    expect(api.objects.get(NAME).metadata.resourceVersion).toBe(versionLabelled);
    expect(api.objects.get(NAME).metadata.labels).toEqual({ team: 'platform' });

    // cert-manager rotated the CA: the apply carries the new bundle; the label stays its owner's.
    const second = await generateSelfSigned(['ts-interpreter.karmada-system.svc']);
    await writeFile(join(dir, 'ca.crt'), second.caPem);
    const updated = await runQuiet(args);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toMatch(/ updated \(/);
    expect(caOf(api.objects.get(NAME))).toBe(second.caPem);
    expect(api.objects.get(NAME).metadata.labels).toEqual({ team: 'platform' });
    expect(api.owners(NAME)).toEqual({ '.webhooks': [FIELD_MANAGER], '.metadata.labels.team': ['kubectl-label'] });

    // `kubectl edit` changed the timeout: that manager now owns the webhooks; the next register forces them back.
    api.edit(NAME, 'kubectl-edit', (o) => (o.webhooks[0].timeoutSeconds = 30));
    expect(api.owners(NAME)['.webhooks']).toEqual(['kubectl-edit']);
    const repaired = await runQuiet(args);
    expect(repaired.stdout).toMatch(/ updated \(/);
    expect(api.objects.get(NAME).webhooks[0].timeoutSeconds).toBe(5);
    expect(api.owners(NAME)['.webhooks']).toEqual([FIELD_MANAGER]);
  });

  it('the fake refuses what karmada-apiserver refuses, so the checks above can fail', async () => {
    const call = (method: string, path: string, contentType: string | undefined, body: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(path, api.url);
        const req = request(
          url,
          { method, ca: api.caPem, headers: { authorization: `Bearer ${api.token}`, ...(contentType ? { 'content-type': contentType } : {}) } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const object = JSON.stringify({
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterWebhookConfiguration',
      metadata: { name: 'probe' },
      webhooks: [],
    });
    const path = '/apis/config.karmada.io/v1alpha1/resourceinterpreterwebhookconfigurations/probe';
    expect(await call('PUT', path, 'application/json', object)).toBe(405); // get-then-put is not server-side apply
    expect(await call('POST', '/apis/config.karmada.io/v1alpha1/resourceinterpreterwebhookconfigurations', 'application/json', object)).toBe(404);
    expect(await call('PATCH', `${path}?fieldManager=x`, 'application/merge-patch+json', object)).toBe(415);
    expect(await call('PATCH', path, APPLY_PATCH_CONTENT_TYPE, object)).toBe(422); // no fieldManager
    expect(await call('PATCH', `${path}?fieldManager=x`, APPLY_PATCH_CONTENT_TYPE, JSON.stringify({ metadata: { name: 'probe' }, webhooks: [] }))).toBe(400); // not the whole object
    expect(await call('PATCH', `${path}?fieldManager=x`, APPLY_PATCH_CONTENT_TYPE, object.replace('"probe"', '"other"'))).toBe(400);
    expect(await call('PATCH', `${path}?fieldManager=x`, APPLY_PATCH_CONTENT_TYPE, object)).toBe(201);
    // YAML is what the content type names; a field another manager holds conflicts unless forced.
    const yaml = stringify({ ...JSON.parse(object), webhooks: [{ name: 'a.b.c' }] });
    expect(await call('PATCH', `${path}?fieldManager=y`, APPLY_PATCH_CONTENT_TYPE, yaml)).toBe(409);
    expect(await call('PATCH', `${path}?fieldManager=y&force=true`, APPLY_PATCH_CONTENT_TYPE, yaml)).toBe(200);
    expect(api.owners('probe')).toEqual({ '.webhooks': ['y'] });
    expect(await call('GET', path, undefined, '').then(() => api.objects.get('probe').webhooks)).toEqual([{ name: 'a.b.c' }]);
    api.objects.delete('probe');
  });

  it('reads a kubeconfig made of several files and contexts as kubectl does (KUBECONFIG list, first wins, --context, --kubeconfig alone, ~/.kube/config)', async () => {
    const certs = await generateSelfSigned();
    const dir = await tempDir({
      'ca.pem': certs.caPem,
      // File 1: the API server's cluster (CA by a path relative to this file) and the host cluster's context, which is current.
      'one/config': stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          { name: 'karmada-apiserver', cluster: { server: api.url, 'certificate-authority': 'karmada-ca.crt' } },
          { name: 'host', cluster: { server: api.url, 'certificate-authority': 'karmada-ca.crt' } },
        ],
        users: [{ name: 'host-admin', user: { token: 'not-valid-for-karmada' } }],
        contexts: [{ name: 'host', context: { cluster: 'host', user: 'host-admin' } }],
        'current-context': 'host',
      }),
      'one/karmada-ca.crt': api.caPem,
      // File 2: the karmada user (token file next to it) and context; its own "karmada-apiserver" cluster and
      // current-context come second and must lose.
      'two/config': stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'karmada-apiserver', cluster: { server: 'https://127.0.0.1:1' } }],
        users: [{ name: 'karmada-admin', user: { 'token-file': 'token' } }],
        contexts: [{ name: 'karmada-apiserver', context: { cluster: 'karmada-apiserver', user: 'karmada-admin' } }],
        'current-context': 'karmada-apiserver',
      }),
      'two/token': api.token,
    });
    dirs.push(dir);
    const args = ['--url', 'https://interpreter.example.com/interpret', '--ca-file', join(dir, 'ca.pem'), '--name', 'multi-file'];
    vi.stubEnv('KUBECONFIG', [join(dir, 'one/config'), join(dir, 'missing/config'), join(dir, 'two/config')].join(delimiter));

    const chosen = await runQuiet([...args, '--context', 'karmada-apiserver']);
    expect(chosen.stderr).toBe('');
    expect(chosen.stdout).toMatch(/multi-file created \(context karmada-apiserver, /);
    expect(caOf(api.objects.get('multi-file'))).toBe(certs.caPem);

    // Without --context, the first file's current-context (host, whose user karmada refuses) is used.
    const unauthorized = api.calls.filter((c) => c.status === 401).length;
    const current = await runQuiet(args);
    expect(current.code).toBe(1);
    expect(current.stderr).toMatch(/HTTP 401/);
    expect(api.calls.filter((c) => c.status === 401).length).toBeGreaterThan(unauthorized);

    const unknown = await runQuiet([...args, '--context', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/context "nope" not found in .*one\/config, .*two\/config \(merged\) \(contexts: host, karmada-apiserver\)/);

    // --kubeconfig is used alone: the second file by itself has its own cluster entry (nothing listens there).
    const alone = await runQuiet([...args, '--kubeconfig', join(dir, 'two/config'), '--context', 'host']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/context "host" not found in .*two\/config \(contexts: karmada-apiserver\)/);
    expect((await runQuiet([...args, '--kubeconfig', api.kubeconfig])).stdout).toMatch(/multi-file unchanged \(context karmada-apiserver, /);

    // No KUBECONFIG: ~/.kube/config.
    vi.stubEnv('KUBECONFIG', '');
    const home = await tempDir({
      '.kube/config': stringify({
        clusters: [{ name: 'k', cluster: { server: api.url, 'certificate-authority-data': Buffer.from(api.caPem).toString('base64') } }],
        users: [{ name: 'u', user: { token: api.token } }],
        contexts: [{ name: 'from-home', context: { cluster: 'k', user: 'u' } }],
        'current-context': 'from-home',
      }),
    });
    dirs.push(home);
    vi.stubEnv('HOME', home);
    expect((await runQuiet(args)).stdout).toMatch(/multi-file unchanged \(context from-home, /);
    vi.stubEnv('HOME', join(home, 'elsewhere'));
    const none = await runQuiet(args);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /no kubeconfig: .*elsewhere\/\.kube\/config from the default ~\/\.kube\/config not found \(give --kubeconfig FILE or set KUBECONFIG\)/,
    );
  });

  it('warns about the ResourceInterpreterCustomizations in karmada-apiserver that Karmada asks first, with what to do', async () => {
    const certs = await generateSelfSigned();
    const dir = await tempDir({ 'ca.pem': certs.caPem });
    dirs.push(dir);
    const lua = 'function GetReplicas(obj) return 1, nil end';
    api.customizations.set(
      'kruise-cloneset',
      ric('kruise-cloneset', 'apps.kruise.io/v1alpha1', 'CloneSet', { replicaResource: lua, healthInterpretation: lua, statusReflection: '' }),
    );
    api.customizations.set('argo-workflow', ric('argo-workflow', 'argoproj.io/v1alpha1', 'Workflow', { retention: lua, componentResource: lua }));
    api.customizations.set('other-version', ric('other-version', 'apps.kruise.io/v1beta2', 'CloneSet', { replicaResource: lua }));
    // Enough unrelated ones that the list comes in pages.
    for (let i = 0; i < 300; i++) api.customizations.set(`deployment-${i}`, ric(`deployment-${i}`, 'apps/v1', 'Deployment', { replicaResource: lua }));
    const listsBefore = api.calls.filter((c) => c.path.endsWith('/resourceinterpretercustomizations')).length;

    const out = await runQuiet([
      '--kubeconfig',
      api.kubeconfig,
      '--url',
      'https://interpreter.example.com/interpret',
      '--ca-file',
      join(dir, 'ca.pem'),
      '--name',
      'shadowed',
    ]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/shadowed created/);
    expect(out.stderr).toBe(
      [
        'warning: ResourceInterpreterCustomizations in karmada-apiserver take precedence over any interpreter webhook, so Karmada will not call this webhook for:',
        '  ResourceInterpreterCustomization argo-workflow answers Workflow (argoproj.io/v1alpha1): Retain (retention)',
        '  ResourceInterpreterCustomization kruise-cloneset answers CloneSet (apps.kruise.io/v1alpha1): InterpretReplica (replicaResource), InterpretHealth (healthInterpretation)',
        `To let the webhook answer, delete them from karmada-apiserver (kubectl --kubeconfig ${api.kubeconfig} --context karmada-apiserver delete resourceinterpretercustomization argo-workflow kruise-cloneset) or remove the rules named in parentheses from them; whatever a customization keeps, Karmada goes on running instead of asking the webhook.`,
        '',
      ].join('\n'),
    );
    const lists = api.calls.filter((c) => c.path.endsWith('/resourceinterpretercustomizations')).slice(listsBefore);
    expect(lists.map((c) => c.query.continue)).toEqual([undefined, '250']);

    // Without list rights the registration still succeeds and says what it could not check.
    api.forbidCustomizations = true;
    const forbidden = await runQuiet([
      '--kubeconfig',
      api.kubeconfig,
      '--url',
      'https://interpreter.example.com/interpret',
      '--ca-file',
      join(dir, 'ca.pem'),
      '--name',
      'shadowed',
    ]);
    expect(forbidden.code).toBe(0);
    expect(forbidden.stderr).toMatch(
      /^warning: could not check for ResourceInterpreterCustomizations .*HTTP 403 .*list on resourceinterpretercustomizations\.config\.karmada\.io; see manifests\/karmada\/register-rbac\.yaml/,
    );
  });

  it('uses the serving certificate itself when there is no ca.crt, and an explicit --ca-file over both', async () => {
    const certs = await generateSelfSigned();
    const dir = await tempDir({ 'tls.crt': certs.certPem, 'tls.key': certs.keyPem, 'other-ca.pem': certs.caPem });
    dirs.push(dir);
    const base = ['--kubeconfig', api.kubeconfig, '--url', 'https://interpreter.example.com/interpret', '--name', 'from-cert'];
    expect((await runQuiet([...base, '--tls-cert-file', join(dir, 'tls.crt')])).code).toBe(0);
    expect(caOf(api.objects.get('from-cert'))).toBe(certs.certPem);
    expect((await runQuiet([...base, '--tls-cert-file', join(dir, 'tls.crt'), '--ca-file', join(dir, 'other-ca.pem')])).code).toBe(0);
    expect(caOf(api.objects.get('from-cert'))).toBe(certs.caPem);
  });

  it('explains failures: missing CA (usage, exit 2), a CA file without certificates, an API error (exit 1)', async () => {
    const noCa = await runQuiet(['--kubeconfig', api.kubeconfig, '--service', 'karmada-system/x']);
    expect(noCa.code).toBe(2);
    expect(noCa.stderr).toMatch(/--ca-file, --cert-dir or --tls-cert-file/);

    const dir = await tempDir({ 'junk.pem': 'not a certificate\n' });
    dirs.push(dir);
    const junk = await runQuiet(['--kubeconfig', api.kubeconfig, '--service', 'karmada-system/x', '--ca-file', join(dir, 'junk.pem')]);
    expect(junk.code).toBe(1);
    expect(junk.stderr).toMatch(/junk\.pem holds no PEM certificate \(it holds no PEM block\)/);
    await writeFile(join(dir, 'tls.key'), (await generateSelfSigned()).keyPem);
    const key = await runQuiet(['--kubeconfig', api.kubeconfig, '--service', 'karmada-system/x', '--ca-file', join(dir, 'tls.key'), '--name', 'from-key']);
    expect(key.code).toBe(1);
    expect(key.stderr).toMatch(/^register: \S*tls\.key holds no PEM certificate \(it holds a PEM PRIVATE KEY\): give the CA certificate\n$/);
    expect(api.objects.has('from-key')).toBe(false);

    const certs = await generateSelfSigned();
    await writeFile(join(dir, 'ca.pem'), certs.caPem);
    api.failNext(403);
    const forbidden = await runQuiet(['--kubeconfig', api.kubeconfig, '--service', 'karmada-system/x', '--ca-file', join(dir, 'ca.pem'), '--name', 'denied']);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(
      /karmada-apiserver answered HTTP 403 for ResourceInterpreterWebhookConfiguration denied: injected failure 403 .*get, create and patch .*register-rbac\.yaml/,
    );
    expect(api.objects.has('denied')).toBe(false);
  });

  it('an API server nothing answers at: the message gives its URL and why (not only "fetch failed")', async () => {
    // A loopback port that was just free: connecting to it is refused.
    const listener = createServer();
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as AddressInfo;
    await new Promise((resolve) => listener.close(resolve));
    const certs = await generateSelfSigned();
    const url = `https://127.0.0.1:${port}`;
    const dir = await tempDir({
      'ca.pem': certs.caPem,
      kubeconfig: stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'gone', cluster: { server: url, 'certificate-authority-data': Buffer.from(certs.caPem).toString('base64') } }],
        users: [{ name: 'admin', user: { token: 'x' } }],
        contexts: [{ name: 'gone', context: { cluster: 'gone', user: 'admin' } }],
        'current-context': 'gone',
      }),
    });
    dirs.push(dir);
    const result = await runQuiet(['--kubeconfig', join(dir, 'kubeconfig'), '--service', 'karmada-system/x', '--ca-file', join(dir, 'ca.pem')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `register: cannot reach karmada-apiserver at ${url} for ResourceInterpreterWebhookConfiguration karmada-interpreter-webhook: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
  });

  it('Registrar retries after failures with backoff, re-applies on refresh, and logs the precedence warning when it changes', async () => {
    const certs = await generateSelfSigned();
    const dir = await tempDir({ 'tls.crt': certs.certPem, 'ca.crt': certs.caPem });
    dirs.push(dir);
    const loaded = await createRegistry();
    const results: string[] = [];
    const logs: Array<{ level: number; msg: string; shadowing?: unknown }> = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => (logs.push(JSON.parse(String(chunk))), done()) });
    const registrar = new Registrar(
      () => loaded.registry.served(),
      { kubeconfig: api.kubeconfig, service: 'karmada-system/ts-interpreter', certFile: join(dir, 'tls.crt'), name: 'with-retries' },
      pino({ level: 'info' }, sink),
      { backoffMs: 50, maxBackoffMs: 100, resyncMs: 60_000 },
      (r) => results.push(r),
    );
    const warnings = () => logs.filter((l) => l.level === 40).map((l) => l.msg.split('\n')[1] ?? l.msg);
    try {
      api.customizations.set(
        'kruise-cloneset',
        ric('kruise-cloneset', 'apps.kruise.io/v1alpha1', 'CloneSet', { retention: 'function Retain(d, o) return d end' }),
      );
      api.failNext(500, 2);
      await registrar.refresh('start');
      const deadline = Date.now() + 5000;
      // Wait for the outcome on our side (the fake stores the object before the client has its answer).
      while (!results.includes('created') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(results.slice(0, 3)).toEqual(['error', 'error', 'created']);
      expect(caOf(api.objects.get('with-retries'))).toBe(certs.caPem);
      await registrar.refresh('again');
      expect(results.at(-1)).toBe('unchanged');
      expect(warnings()).toEqual(['  ResourceInterpreterCustomization kruise-cloneset answers CloneSet (apps.kruise.io/v1alpha1): Retain (retention)']); // once, not per apply

      const rotated = await generateSelfSigned();
      await writeFile(join(dir, 'ca.crt'), rotated.caPem);
      api.customizations.delete('kruise-cloneset');
      await registrar.refresh('certificate rotated');
      expect(results.at(-1)).toBe('updated');
      expect(caOf(api.objects.get('with-retries'))).toBe(rotated.caPem);
      expect(logs.at(-1)!.msg).toBe('no ResourceInterpreterCustomization in karmada-apiserver takes precedence over this webhook');
    } finally {
      registrar.close();
      loaded.close();
    }
  });
});
