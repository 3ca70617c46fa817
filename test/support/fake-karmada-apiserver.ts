// A loopback HTTPS server that implements the few karmada-apiserver calls `register` makes on
// config.karmada.io/v1alpha1 resourceinterpreterwebhookconfigurations (cluster-scoped): GET one,
// POST (create; 409 if it exists), PUT (replace; 409 on a stale resourceVersion, 404 if missing).
// It checks the bearer token, keeps objects in memory and records every call.
import { createServer, type Server } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { generateSelfSigned } from '../../src/server/certificates.ts';

const BASE = '/apis/config.karmada.io/v1alpha1/resourceinterpreterwebhookconfigurations';
const TOKEN = 'test-token-for-fake-karmada-apiserver';

export interface RecordedCall {
  method: string;
  path: string;
  body?: any;
}

export interface FakeKarmadaApiserver {
  url: string;
  kubeconfig: string;
  objects: Map<string, any>;
  calls: RecordedCall[];
  /** Makes the next n calls fail with this HTTP status (e.g. 500, 403). */
  failNext(status: number, n?: number): void;
  close(): Promise<void>;
}

function status(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

export async function startFakeKarmadaApiserver(): Promise<FakeKarmadaApiserver> {
  const certs = await generateSelfSigned();
  const objects = new Map<string, any>();
  const calls: RecordedCall[] = [];
  let resourceVersion = 100;
  let failures: { status: number; left: number } | undefined;

  const server: Server = createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://localhost').pathname;
      const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      calls.push({ method: req.method ?? '', path, body });
      const send = (code: number, payload: unknown) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(401, status(401, 'Unauthorized', 'Unauthorized'));
      if (failures && failures.left > 0) {
        failures.left -= 1;
        return send(failures.status, status(failures.status, 'InternalError', `injected failure ${failures.status}`));
      }
      if (path === BASE && req.method === 'POST') {
        const name = body?.metadata?.name;
        if (objects.has(name)) return send(409, status(409, 'AlreadyExists', `resourceinterpreterwebhookconfigurations.config.karmada.io "${name}" already exists`));
        const stored = { ...body, metadata: { ...body.metadata, uid: `uid-${name}`, resourceVersion: String(++resourceVersion) } };
        objects.set(name, stored);
        return send(201, stored);
      }
      const match = path.startsWith(`${BASE}/`) ? decodeURIComponent(path.slice(BASE.length + 1)) : undefined;
      if (match === undefined || match.includes('/')) return send(404, status(404, 'NotFound', `the server could not find the requested resource (${path})`));
      const existing = objects.get(match);
      if (req.method === 'GET') {
        return existing ? send(200, existing) : send(404, status(404, 'NotFound', `resourceinterpreterwebhookconfigurations.config.karmada.io "${match}" not found`));
      }
      if (req.method === 'PUT') {
        if (!existing) return send(404, status(404, 'NotFound', `resourceinterpreterwebhookconfigurations.config.karmada.io "${match}" not found`));
        if (body?.metadata?.resourceVersion !== existing.metadata.resourceVersion) {
          return send(409, status(409, 'Conflict', 'the object has been modified; please apply your changes to the latest version and try again'));
        }
        const stored = { ...body, metadata: { ...body.metadata, uid: existing.metadata.uid, resourceVersion: String(++resourceVersion) } };
        objects.set(match, stored);
        return send(200, stored);
      }
      return send(405, status(405, 'MethodNotAllowed', `${req.method} is not supported by this fake`));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `https://127.0.0.1:${port}`;

  const dir = await mkdtemp(join(tmpdir(), 'kiw-fake-karmada-'));
  const kubeconfig = join(dir, 'karmada-apiserver.config');
  await writeFile(
    kubeconfig,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'karmada-apiserver', cluster: { server: url, 'certificate-authority-data': Buffer.from(certs.caPem).toString('base64') } }],
      users: [{ name: 'karmada-admin', user: { token: TOKEN } }],
      contexts: [{ name: 'karmada-apiserver', context: { cluster: 'karmada-apiserver', user: 'karmada-admin' } }],
      'current-context': 'karmada-apiserver',
    }),
  );

  return {
    url,
    kubeconfig,
    objects,
    calls,
    failNext(code: number, n = 1) {
      failures = { status: code, left: n };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
