// A loopback HTTPS stand-in for the karmada-apiserver calls `register` makes, strict about their form:
// * resourceinterpreterwebhookconfigurations (config.karmada.io/v1alpha1, cluster-scoped): GET one, and
//   server-side apply (PATCH): the request must carry Content-Type application/apply-patch+yaml, a
//   fieldManager, and a body that is the whole object (apiVersion, kind, metadata.name as in the URL, no
//   resourceVersion or managedFields), as the API server requires (k8s.io/apiserver
//   pkg/endpoints/handlers/patch.go). Other patch types answer 415, other methods 405.
//   Field ownership is kept per manager at the granularity Karmada's CRD gives (webhooks is an atomic
//   list; each label and annotation is a field): applying a value another manager owns conflicts (409)
//   unless force=true, fields a manager stops applying are dropped, and the resourceVersion moves only
//   when the object changes.
// * resourceinterpretercustomizations: LIST, paged with limit/continue.
// Every call needs the bearer token; every call is recorded.
import { createServer, type Server } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse, stringify } from 'yaml';
import { generateSelfSigned } from '../../src/server/certificates.ts';

const GROUP_VERSION = '/apis/config.karmada.io/v1alpha1';
const WEBHOOK_CONFIGURATIONS = `${GROUP_VERSION}/resourceinterpreterwebhookconfigurations`;
const CUSTOMIZATIONS = `${GROUP_VERSION}/resourceinterpretercustomizations`;
export const APPLY_PATCH_CONTENT_TYPE = 'application/apply-patch+yaml';

export interface RecordedCall {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType?: string;
  /** The body as sent. */
  text: string;
  /** The body parsed (YAML, which covers JSON). */
  body?: any;
  status: number;
}

export interface FakeKarmadaApiserver {
  url: string;
  /** A one-file kubeconfig for this server (context karmada-apiserver). */
  kubeconfig: string;
  /** What a kubeconfig needs to reach this server. */
  caPem: string;
  token: string;
  objects: Map<string, any>;
  /** ResourceInterpreterCustomizations by name, served by LIST. */
  customizations: Map<string, any>;
  calls: RecordedCall[];
  /** Field path -> managers that own it, per object name. */
  owners(name: string): Record<string, string[]>;
  /** Changes a stored object as an Update by `manager` would (kubectl edit): that manager takes the changed fields. */
  edit(name: string, manager: string, change: (object: any) => void): void;
  /** Makes the next n calls fail with this HTTP status (e.g. 500, 403). */
  failNext(status: number, n?: number): void;
  /** Answers 403 to every call on the ResourceInterpreterCustomizations while on. */
  forbidCustomizations: boolean;
  close(): Promise<void>;
}

function status(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

/** The fields of an object for ownership: top-level keys but metadata, and each label and annotation. */
function fieldsOf(object: any): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  for (const [key, value] of Object.entries(object ?? {})) if (!['apiVersion', 'kind', 'metadata'].includes(key)) fields.set(`.${key}`, value);
  for (const map of ['labels', 'annotations']) {
    for (const [key, value] of Object.entries(object?.metadata?.[map] ?? {})) fields.set(`.metadata.${map}.${key}`, value);
  }
  return fields;
}

function setField(object: any, path: string, value: unknown) {
  const [, first, second, key] = path.split('.');
  if (first !== 'metadata') object[first!] = value;
  else (object.metadata[second!] ??= {})[key!] = value;
}

function deleteField(object: any, path: string) {
  const [, first, second, key] = path.split('.');
  if (first !== 'metadata') delete object[first!];
  else {
    delete object.metadata[second!]?.[key!];
    if (object.metadata[second!] && Object.keys(object.metadata[second!]).length === 0) delete object.metadata[second!];
  }
}

export async function startFakeKarmadaApiserver(): Promise<FakeKarmadaApiserver> {
  const certs = await generateSelfSigned();
  const token = `token-${Math.random().toString(36).slice(2)}`;
  const objects = new Map<string, any>();
  const customizations = new Map<string, any>();
  const ownership = new Map<string, Map<string, Set<string>>>();
  const calls: RecordedCall[] = [];
  let resourceVersion = 100;
  let failures: { status: number; left: number } | undefined;

  const managedFields = (name: string) => {
    const byManager = new Map<string, string[]>();
    for (const [path, managers] of ownership.get(name) ?? []) for (const m of managers) byManager.set(m, [...(byManager.get(m) ?? []), path]);
    return [...byManager].map(([manager, paths]) => ({ manager, fields: paths.sort() }));
  };

  const apply = (name: string, body: any, manager: string, force: boolean): { code: number; payload: unknown } => {
    const existing = objects.get(name);
    const owners = ownership.get(name) ?? new Map<string, Set<string>>();
    const next = existing
      ? structuredClone(existing)
      : { apiVersion: body.apiVersion, kind: body.kind, metadata: { name, uid: `uid-${name}`, creationTimestamp: new Date().toISOString() } };
    const applied = fieldsOf(body);
    const current = fieldsOf(existing);
    const conflicts = [...applied].filter(([path, value]) => {
      const others = [...(owners.get(path) ?? [])].filter((m) => m !== manager);
      return others.length > 0 && !isDeepStrictEqual(current.get(path), value);
    });
    if (conflicts.length > 0 && !force) {
      const list = conflicts.map(([path]) => `conflict with "${[...owners.get(path)!].join('", "')}": ${path}`).join('\n- ');
      return { code: 409, payload: status(409, 'Conflict', `Apply failed with ${conflicts.length} conflict${conflicts.length > 1 ? 's' : ''}: ${list}`) };
    }
    for (const [path, value] of applied) {
      setField(next, path, structuredClone(value));
      const set = owners.get(path) ?? new Set<string>();
      // Forcing (or changing the value) takes the field; applying the same value shares it.
      if (!isDeepStrictEqual(current.get(path), value)) set.clear();
      set.add(manager);
      owners.set(path, set);
    }
    for (const [path, set] of owners) {
      if (applied.has(path) || !set.has(manager)) continue;
      set.delete(manager);
      if (set.size === 0) {
        owners.delete(path);
        deleteField(next, path);
      }
    }
    ownership.set(name, owners);
    const strip = (o: any) => o && { ...o, metadata: { ...o.metadata, resourceVersion: undefined, managedFields: undefined } };
    if (!existing || !isDeepStrictEqual(strip(existing), strip(next))) next.metadata.resourceVersion = String(++resourceVersion);
    next.metadata.managedFields = managedFields(name);
    objects.set(name, next);
    return { code: existing ? 200 : 201, payload: next };
  };

  const server: Server = createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://localhost');
      const path = url.pathname;
      const text = Buffer.concat(chunks).toString('utf8');
      const call: RecordedCall = {
        method: req.method ?? '',
        path,
        query: Object.fromEntries(url.searchParams),
        contentType: req.headers['content-type'],
        text,
        status: 0,
      };
      calls.push(call);
      const send = (code: number, payload: unknown) => {
        call.status = code;
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (req.headers.authorization !== `Bearer ${token}`) return send(401, status(401, 'Unauthorized', 'Unauthorized'));
      if (failures && failures.left > 0) {
        failures.left -= 1;
        return send(failures.status, status(failures.status, 'InternalError', `injected failure ${failures.status}`));
      }
      if (text !== '') {
        try {
          call.body = parse(text);
        } catch (error) {
          return send(400, status(400, 'BadRequest', `error decoding YAML: ${(error as Error).message}`));
        }
      }

      if (path === CUSTOMIZATIONS && fake.forbidCustomizations) {
        return send(
          403,
          status(
            403,
            'Forbidden',
            'resourceinterpretercustomizations.config.karmada.io is forbidden: User "system:serviceaccount:karmada-interpreter:karmada-interpreter-register" cannot list resource "resourceinterpretercustomizations" in API group "config.karmada.io" at the cluster scope',
          ),
        );
      }
      if (path === CUSTOMIZATIONS && req.method === 'GET') {
        const all = [...customizations.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
        const start = Number(call.query.continue ?? 0);
        const limit = Number(call.query.limit ?? 0) || all.length;
        const items = all.slice(start, start + limit);
        const more = start + limit < all.length;
        return send(200, {
          apiVersion: 'config.karmada.io/v1alpha1',
          kind: 'ResourceInterpreterCustomizationList',
          metadata: { resourceVersion: String(resourceVersion), ...(more ? { continue: String(start + limit) } : {}) },
          items,
        });
      }

      const name = path.startsWith(`${WEBHOOK_CONFIGURATIONS}/`) ? decodeURIComponent(path.slice(WEBHOOK_CONFIGURATIONS.length + 1)) : undefined;
      if (name === undefined || name === '' || name.includes('/'))
        return send(404, status(404, 'NotFound', `the server could not find the requested resource (${req.method} ${path})`));
      const notFound = () => send(404, status(404, 'NotFound', `resourceinterpreterwebhookconfigurations.config.karmada.io "${name}" not found`));
      if (req.method === 'GET') return objects.has(name) ? send(200, objects.get(name)) : notFound();
      if (req.method !== 'PATCH')
        return send(405, status(405, 'MethodNotAllowed', `${req.method} is not what register should send (server-side apply is a PATCH)`));

      if (call.contentType !== APPLY_PATCH_CONTENT_TYPE) {
        return send(
          415,
          status(
            415,
            'UnsupportedMediaType',
            `the body of the request was in an unknown format - accepted media types include: ${APPLY_PATCH_CONTENT_TYPE} (only server-side apply is expected here)`,
          ),
        );
      }
      const manager = call.query.fieldManager;
      if (!manager)
        return send(422, status(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch'));
      if (call.query.force !== undefined && !['true', 'false'].includes(call.query.force))
        return send(400, status(400, 'BadRequest', `force=${call.query.force} is not a boolean`));
      const body = call.body;
      if (body?.apiVersion !== 'config.karmada.io/v1alpha1' || body?.kind !== 'ResourceInterpreterWebhookConfiguration') {
        return send(
          400,
          status(400, 'BadRequest', 'apply needs the whole object: apiVersion config.karmada.io/v1alpha1 and kind ResourceInterpreterWebhookConfiguration'),
        );
      }
      if (body.metadata?.name !== name)
        return send(400, status(400, 'BadRequest', `the name of the object (${body.metadata?.name}) does not match the name on the URL (${name})`));
      if (body.metadata.managedFields !== undefined) return send(400, status(400, 'BadRequest', 'metadata.managedFields must be nil'));
      if (body.metadata.resourceVersion !== undefined)
        return send(409, status(409, 'Conflict', 'an apply that sends a resourceVersion is a precondition; register must not send one'));
      const { code, payload } = apply(name, body, manager, call.query.force === 'true');
      return send(code, payload);
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
      users: [{ name: 'karmada-admin', user: { token } }],
      contexts: [{ name: 'karmada-apiserver', context: { cluster: 'karmada-apiserver', user: 'karmada-admin' } }],
      'current-context': 'karmada-apiserver',
    }),
  );

  const fake: FakeKarmadaApiserver = {
    url,
    kubeconfig,
    caPem: certs.caPem,
    token,
    objects,
    customizations,
    calls,
    owners(name: string) {
      return Object.fromEntries([...(ownership.get(name) ?? [])].map(([path, set]) => [path, [...set].sort()]));
    },
    edit(name: string, manager: string, change: (object: any) => void) {
      const object = objects.get(name);
      const before = fieldsOf(structuredClone(object));
      change(object);
      const owners = ownership.get(name)!;
      for (const [path, value] of fieldsOf(object)) {
        if (!isDeepStrictEqual(before.get(path), value)) owners.set(path, new Set([manager]));
      }
      object.metadata.resourceVersion = String(++resourceVersion);
      object.metadata.managedFields = managedFields(name);
    },
    failNext(code: number, n = 1) {
      failures = { status: code, left: n };
    },
    forbidCustomizations: false,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
  return fake;
}
