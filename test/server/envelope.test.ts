// The wire contract Karmada expects, rule by rule: every answer is
// HTTP 200 with an envelope Karmada accepts, and failures carry a code and a message.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { decodePatch, applyPatch } from '../../src/protocol/patch.ts';
import { Registry } from '../../src/interpreter/registry.ts';
import { buildApp } from '../../src/server/app.ts';
import type { KindInterpreter } from '../../src/interpreter/types.ts';
import { closeListening, sendHttp, silentLogger, testApp } from '../support/app.ts';
import { karmadaRequest, workloadObject } from '../support/workload-module.ts';

// Over a real connection, as Karmada calls (src/server/interpret-route.ts);
// test/server/interpret-route.test.ts checks that inject() answers the same bytes.
afterAll(closeListening);

async function post(
  app: ReturnType<typeof testApp>,
  payload: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  url = '/interpret?timeout=3s',
) {
  const reply = await sendHttp(app, { url, headers, body: typeof payload === 'string' ? payload : JSON.stringify(payload) });
  expect(reply.status).toBe(200);
  expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
  return JSON.parse(reply.body);
}

describe('successful answers', () => {
  const app = testApp();

  it('ReviseReplica answers a padded standard base64 JSON Patch against request.object', async () => {
    const req = karmadaRequest('ReviseReplica', workloadObject(), { replicas: 2 });
    const body = await post(app, req);
    expect(body.apiVersion).toBe('config.karmada.io/v1alpha1');
    expect(body.kind).toBe('ResourceInterpreterContext');
    expect(body.response.uid).toBe(req.request.uid);
    expect(body.response.successful).toBe(true);
    expect(body.response.patchType).toBe('JSONPatch');
    expect(body.response.patch).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(body.response.patch.length % 4).toBe(0);
    expect(decodePatch(body.response.patch)).toEqual([{ op: 'replace', path: '/spec/replicas', value: 2 }]);
    expect(body.response.status).toBeUndefined();
  });

  it('omits patch and patchType when nothing changed', async () => {
    const body = await post(app, karmadaRequest('ReviseReplica', workloadObject(), { replicas: 3 }));
    expect(body.response).toEqual({ uid: expect.any(String), successful: true });
  });

  it('InterpretReplica answers integer replicas and requirements', async () => {
    const body = await post(app, karmadaRequest('InterpretReplica', workloadObject()));
    expect(body.response.replicas).toBe(3);
    expect(body.response.replicaRequirements).toEqual({ resourceRequest: { cpu: '100m' }, nodeClaim: { nodeSelector: { disk: 'ssd' } } });
  });

  it('Retain patches from observedObject', async () => {
    const observed = workloadObject();
    observed.spec.paused = true;
    const req = karmadaRequest('Retain', workloadObject(), { observedObject: observed });
    const body = await post(app, req);
    const patched = applyPatch(req.request.object, decodePatch(body.response.patch));
    expect(patched.spec.paused).toBe(true);
  });

  it('AggregateStatus folds items; an absent aggregatedStatus is accepted', async () => {
    const items = [
      { clusterName: 'member1', status: { readyReplicas: 2 }, applied: true, health: 'Healthy' },
      { clusterName: 'member2', applied: true },
    ];
    const req = karmadaRequest('AggregateStatus', workloadObject(), { aggregatedStatus: items });
    const body = await post(app, req);
    expect(applyPatch(req.request.object, decodePatch(body.response.patch)).status).toEqual({ readyReplicas: 2 });
    const none = await post(app, karmadaRequest('AggregateStatus', workloadObject()));
    expect(none.response.successful).toBe(true);
  });

  it('InterpretStatus answers rawStatus, InterpretHealth healthy, InterpretDependency dependencies', async () => {
    const observed = { ...workloadObject(), status: { readyReplicas: 3 } };
    expect((await post(app, karmadaRequest('InterpretStatus', observed))).response.rawStatus).toEqual({ readyReplicas: 3 });
    expect((await post(app, karmadaRequest('InterpretHealth', observed))).response.healthy).toBe(true);
    expect((await post(app, karmadaRequest('InterpretHealth', workloadObject()))).response.healthy).toBe(false);
    expect((await post(app, karmadaRequest('InterpretDependency', workloadObject()))).response.dependencies).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'nginx-env' },
    ]);
  });

  it('serves any path under /interpret/ and ignores the query string', async () => {
    const body = await post(app, karmadaRequest('InterpretReplica', workloadObject()), undefined, '/interpret/workloads?timeout=30s');
    expect(body.response.successful).toBe(true);
  });

  it('accepts application/json with parameters', async () => {
    const body = await post(app, karmadaRequest('InterpretReplica', workloadObject()), { 'content-type': 'application/json; charset=utf-8' });
    expect(body.response.successful).toBe(true);
  });

  it('never mutates the object it diffs against (a module that edits in place still yields a correct patch)', async () => {
    const req = karmadaRequest('ReviseReplica', workloadObject(), { replicas: 7 });
    const sent = structuredClone(req.request.object);
    const body = await post(app, req);
    expect(applyPatch(sent, decodePatch(body.response.patch)).spec.replicas).toBe(7);
  });
});

describe('failures are envelopes with a code, never HTTP errors', () => {
  const app = testApp();
  const failure = (body: any, code: number, message: RegExp, uid?: string) => {
    expect(body.response.successful).toBe(false);
    expect(body.response.status.code).toBe(code);
    expect(body.response.status.message).toMatch(message);
    if (uid !== undefined) expect(body.response.uid).toBe(uid);
  };

  it('malformed JSON: 400', async () => failure(await post(app, '{"request": {"uid": "abc", '), 400, /not valid JSON/, 'abc'));
  it('empty body: 400', async () => failure(await post(app, ''), 400, /empty/));
  it('wrong content type: 400, uid kept', async () => {
    const req = karmadaRequest('InterpretReplica', workloadObject());
    failure(await post(app, req, { 'content-type': 'text/plain' }), 400, /Content-Type must be application\/json/, req.request.uid);
  });
  it('missing content type: 400', async () => failure(await post(app, karmadaRequest('InterpretReplica', workloadObject()), {}), 400, /Content-Type/));
  it('envelope without request: 400 naming the field', async () =>
    failure(await post(app, { apiVersion: 'config.karmada.io/v1alpha1' }), 400, /request is required/));
  it('request without uid: 400 naming the field', async () => {
    const req = karmadaRequest('InterpretReplica', workloadObject()) as any;
    delete req.request.uid;
    failure(await post(app, req), 400, /request\.uid is required/);
  });
  it('request.kind.kind missing: 400 naming the field, uid kept', async () => {
    const req = karmadaRequest('InterpretReplica', workloadObject()) as any;
    delete req.request.kind.kind;
    failure(await post(app, req), 400, /request\.kind\.kind is required/, req.request.uid);
  });
  it('object not an object: 400', async () => {
    const req = karmadaRequest('InterpretReplica', workloadObject()) as any;
    req.request.object = 'x';
    failure(await post(app, req), 400, /request\.object must be object/);
  });
  it('fractional replicas: 400', async () => {
    const req = karmadaRequest('ReviseReplica', workloadObject(), { replicas: 2.5 });
    failure(await post(app, req), 400, /request\.replicas must be integer/);
  });
  it('wrong envelope apiVersion: 400', async () => {
    const req = { ...karmadaRequest('InterpretReplica', workloadObject()), apiVersion: 'v1' };
    failure(await post(app, req), 400, /apiVersion must be "config.karmada.io\/v1alpha1"/);
  });
  it('aggregatedStatus item without clusterName: 400', async () => {
    const req = karmadaRequest('AggregateStatus', workloadObject(), { aggregatedStatus: [{ status: {} }] });
    failure(await post(app, req), 400, /aggregatedStatus\.0\.clusterName is required/);
  });
  it('unknown kind: 404 listing the served kinds', async () => {
    const obj = { ...workloadObject(), apiVersion: 'apps/v1', kind: 'Deployment' };
    failure(await post(app, karmadaRequest('InterpretReplica', obj)), 404, /apps\/v1 Deployment is not served.*workload\.example\.io\/v1alpha1 Workload/);
  });
  it('operation not implemented for the kind: 501', async () =>
    failure(await post(app, karmadaRequest('InterpretComponent', workloadObject())), 501, /InterpretComponent is not implemented/));
  it('Prune: 501', async () => failure(await post(app, karmadaRequest('Prune', workloadObject())), 501, /Prune/));
  it('unknown operation: 400', async () => failure(await post(app, karmadaRequest('Explode', workloadObject())), 400, /not a Karmada interpreter operation/));
  it('Retain without observedObject: 400', async () => failure(await post(app, karmadaRequest('Retain', workloadObject())), 400, /observedObject/));
  it('ReviseReplica with negative replicas: 400', async () =>
    failure(await post(app, karmadaRequest('ReviseReplica', workloadObject(), { replicas: -1 })), 400, /replicas >= 0/));
  it('a deliberate module error keeps its code', async () => {
    const obj = workloadObject();
    obj.spec.fail = 'deliberate';
    failure(await post(app, karmadaRequest('InterpretDependency', obj)), 422, /deliberate failure/);
  });

  it('body over the limit: 413 with the uid recovered from the beginning of the body', async () => {
    const small = testApp({ bodyLimit: 4096 });
    const obj = workloadObject();
    obj.metadata.annotations = { big: 'x'.repeat(10_000) };
    const req = karmadaRequest('InterpretReplica', obj);
    failure(await post(small, req), 413, /exceeds the limit of 4096 bytes/, req.request.uid);
  });
});

describe('module bugs become 500s with a clear message, detail only in the log', () => {
  const broken = { apiVersion: 'broken.example.io/v1', kind: 'Broken', metadata: { name: 'b', namespace: 'default' }, spec: {} };
  const app = testApp();
  it.each([
    ['InterpretReplica', /replicas must be an integer, got 2.5/],
    ['ReviseReplica', /has no 'kind'/],
    ['InterpretHealth', /healthy must be a boolean/],
    ['InterpretDependency', /needs a name or a labelSelector/],
    ['InterpretStatus', /reflected status must be a JSON object/],
  ])('%s', async (operation, message) => {
    const body = await post(app, karmadaRequest(operation, broken, operation === 'ReviseReplica' ? { replicas: 1 } : {}));
    expect(body.response.successful).toBe(false);
    expect(body.response.status.code).toBe(500);
    expect(body.response.status.message).toMatch(message);
  });

  it('an exception answers a generic 500 with the uid; the stack goes to the log with the uid', async () => {
    const lines: any[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _enc, cb) {
          lines.push(JSON.parse(chunk.toString()));
          cb();
        },
      }),
    );
    const logged = testApp({ logger });
    const obj = workloadObject();
    obj.spec.fail = 'bug';
    const req = karmadaRequest('InterpretDependency', obj);
    const body = await post(logged, req);
    expect(body.response.status.code).toBe(500);
    expect(body.response.status.message).not.toMatch(/TypeError|at /);
    expect(body.response.uid).toBe(req.request.uid);
    const line = lines.find((l) => l.uid === req.request.uid && l.level === 50);
    expect(line.err.stack).toMatch(/TypeError/);
    expect(line.operation).toBe('InterpretDependency');
  });
});

describe('deadline', () => {
  it("answers 504 before Karmada's ?timeout= expires when an interpreter is too slow", async () => {
    // The module answers only when the test lets it, after the server has answered: the answer cannot
    // have waited for it, however fast or slow the machine.
    let release!: () => void;
    const slow: KindInterpreter = {
      targets: [{ apiVersion: 'workload.example.io/v1alpha1', kind: 'Workload' }],
      getReplicas: () => new Promise((resolve) => (release = () => resolve({ replicas: 1 }))),
    };
    const app = buildApp({ registry: new Registry({ 'builtin-ts': [slow] }), logger: silentLogger });
    const body = await post(app, karmadaRequest('InterpretReplica', workloadObject()), undefined, '/interpret?timeout=1s');
    release();
    expect(body.response.status.code).toBe(504);
    expect(body.response.uid).toMatch(/^00000000/);
  });
});
