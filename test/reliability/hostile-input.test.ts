// Hostile and absurd inputs get a clear answer each, never a crash or a polluted prototype: oversize
// bodies (over HTTPS, the connection stays usable), JSON nested 100k levels deep, __proto__ /
// constructor / prototype keys everywhere, huge strings and numbers, duplicate keys.
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry, type LoadedRegistry } from '../../src/interpreter/setup.ts';
import { MAX_NESTING_DEPTH } from '../../src/protocol/exchange.ts';
import { buildApp } from '../../src/server/app.ts';
import { DEFAULT_BODY_LIMIT } from '../../src/server/request-body.ts';
import { startLocalServer, type LocalServer } from '../../src/server/local.ts';
import { silentLogger } from '../support/app.ts';
import { send } from '../support/spawned-server.ts';
import { expectWellFormed } from './envelope-check.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const cloneSetRequest = () => JSON.parse(readFileSync(join(ROOT, 'examples/requests/cloneset-interpretreplica.json'), 'utf8'));
const OPERATIONS = ['InterpretReplica', 'ReviseReplica', 'Retain', 'AggregateStatus', 'InterpretStatus', 'InterpretHealth', 'InterpretDependency'];

/** A KEDA ScaledObject request: served by a Lua customization (the fengari path). */
function scaledObjectRequest(operation: string) {
  const object = {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: { name: 'orders-worker', namespace: 'shop' },
    spec: { scaleTargetRef: { name: 'orders-worker' }, triggers: [{ type: 'rabbitmq', metadata: { queueName: 'orders', value: '20' } }] },
    status: { hpaName: 'keda-hpa-orders-worker', conditions: [{ type: 'Ready', status: 'True' }] },
  };
  return {
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterContext',
    request: {
      uid: `keda-${operation}`,
      kind: { group: 'keda.sh', version: 'v1alpha1', kind: 'ScaledObject' },
      name: 'orders-worker',
      namespace: 'shop',
      operation,
      object,
      replicas: 0,
    },
  };
}

function withOperation(envelope: any, operation: string) {
  envelope.request.operation = operation;
  if (operation === 'Retain') envelope.request.observedObject = structuredClone(envelope.request.object);
  if (operation === 'AggregateStatus')
    envelope.request.aggregatedStatus = [
      { clusterName: 'member1', applied: true, health: 'Healthy', status: structuredClone(envelope.request.object.status ?? {}) },
    ];
  if (operation === 'ReviseReplica') envelope.request.replicas = 2;
  return envelope;
}

describe('hostile input', () => {
  let loaded: LoadedRegistry;
  let app: ReturnType<typeof buildApp>;
  let server: LocalServer;
  beforeAll(async () => {
    loaded = await createRegistry({ examples: 'all' }); // the KEDA requests below need the shipped example
    app = buildApp({ registry: loaded.registry, logger: silentLogger });
    server = await startLocalServer(loaded.registry);
  });
  afterAll(async () => {
    await app.close();
    await server.close();
    loaded.close();
    expect(({} as any).polluted).toBeUndefined();
  });

  const post = async (payload: string, sent: unknown) => {
    const reply = await app.inject({ method: 'POST', url: '/interpret?timeout=10s', headers: { 'content-type': 'application/json' }, payload });
    return expectWellFormed(reply.statusCode, reply.body, sent).response!;
  };

  it('an oversize body gets 413 with its uid, and the keep-alive connection keeps working', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const envelope = cloneSetRequest();
    envelope.request.object.metadata.annotations = { filler: 'x'.repeat(DEFAULT_BODY_LIMIT + 1024) };
    const body = JSON.stringify(envelope);
    const sockets = new Set<unknown>();
    agent.on('free', (socket) => sockets.add(socket));
    const big = await send({ port: server.port, ca: server.ca }, { path: '/interpret', body, agent });
    const answer = expectWellFormed(big.status, big.body, undefined).response!;
    expect(answer).toMatchObject({
      uid: envelope.request.uid,
      successful: false,
      status: { code: 413, message: `request body exceeds the limit of ${DEFAULT_BODY_LIMIT} bytes` },
    });
    const next = await send({ port: server.port, ca: server.ca }, { path: '/interpret', body: JSON.stringify(cloneSetRequest()), agent });
    expect(JSON.parse(next.body).response).toMatchObject({ successful: true, replicas: 4 });
    expect(sockets.size).toBe(1); // the same connection served both
    agent.destroy();
  });

  it('JSON nested 100k levels deep gets a clear 400, wherever it is; moderate depth still works', async () => {
    const N = 100_000;
    const deepObject = '{"a":'.repeat(N) + '1' + '}'.repeat(N);
    const deepArray = '['.repeat(N) + ']'.repeat(N);
    const base = JSON.stringify(cloneSetRequest());
    const uid = cloneSetRequest().request.uid;
    for (const payload of [
      deepObject,
      deepArray,
      base.replace('"spec":{', `"spec":{"deep":${deepObject},`),
      base.replace('"labels":{', `"labels":{"deep":${deepArray},`),
    ]) {
      const answer = await post(payload, undefined);
      expect(answer.status).toEqual({ code: 400, message: `request nests deeper than ${MAX_NESTING_DEPTH} levels; Kubernetes objects nest a few dozen` });
      if (payload.startsWith('{"kind"')) expect(answer.uid).toBe(uid);
    }
    // Just under the limit every operation of a TypeScript and a Lua kind still answers normally.
    const nested = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    for (const operation of OPERATIONS) {
      for (const envelope of [withOperation(cloneSetRequest(), operation), withOperation(scaledObjectRequest(operation), operation)]) {
        const text = JSON.stringify(envelope).replace('"spec":{', `"spec":{"deep":${nested(MAX_NESTING_DEPTH - 10)},`);
        const answer = await post(text, JSON.parse(text));
        expect(answer.status?.code === 500, `${envelope.request.kind.kind} ${operation}: ${answer.status?.message}`).toBe(false);
      }
    }
  });

  it('__proto__, constructor and prototype keys are plain data: every operation answers, nothing is polluted', async () => {
    const poison = '"__proto__":{"polluted":"yes","isAdmin":true},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"},';
    for (const operation of OPERATIONS) {
      for (const envelope of [withOperation(cloneSetRequest(), operation), withOperation(scaledObjectRequest(operation), operation)]) {
        // Injected as text (an object literal would set the prototype instead of a key); only into
        // non-empty objects, so the JSON stays valid.
        const text = JSON.stringify(envelope)
          .replace('"metadata":{"', `"metadata":{${poison}"`)
          .replaceAll('"spec":{"', `"spec":{${poison}"`)
          .replaceAll('"status":{"', `"status":{${poison}"`)
          .replace('"request":{"', `"request":{${poison}"`);
        expect(text.split('"__proto__"').length).toBeGreaterThan(4);
        const answer = await post(text, JSON.parse(text));
        expect(answer.status?.code === 500, `${envelope.request.kind.kind} ${operation}: ${answer.status?.message}`).toBe(false);
        expect(({} as any).polluted).toBeUndefined();
        expect(({} as any).isAdmin).toBeUndefined();
        expect(Object.keys(Object.prototype)).toEqual([]);
      }
    }
  });

  it('huge strings and numbers: served when valid, a clear 400 when not a number Kubernetes could hold', async () => {
    const huge = cloneSetRequest();
    huge.request.object.metadata.annotations = { note: 'é'.repeat(2_000_000) };
    expect(await post(JSON.stringify(huge), huge)).toMatchObject({ successful: true, replicas: 4 });
    const revised = withOperation(cloneSetRequest(), 'ReviseReplica');
    revised.request.object.metadata.annotations = { note: 'x'.repeat(3_000_000) };
    expect(await post(JSON.stringify(revised), revised)).toMatchObject({ successful: true, patchType: 'JSONPatch' });

    const text = JSON.stringify(cloneSetRequest());
    const overflow = await post(text.replace('"replicas":0', '"replicas":1e400'), undefined);
    expect(overflow.status).toMatchObject({ code: 400, message: expect.stringMatching(/request\.replicas/) });
    const longDigits = await post(text.replace('"replicas":0', `"replicas":${'9'.repeat(10_000)}`), undefined);
    expect(longDigits.status).toMatchObject({ code: 400, message: expect.stringMatching(/request\.replicas/) });
    // Refused with a message about replicas (out-of-int32 values are caught by the dispatcher's result
    // validation as a 500 naming the module; the CloneSet module itself could refuse them with a 400).
    for (const value of ['1e400', '9007199254740993', '-1', '2147483648', '1.5']) {
      const answer = await post(text.replace(/"replicas":4,/, `"replicas":${value},`), undefined);
      expect(answer.successful, `spec.replicas ${value}`).toBe(false);
      expect(answer.status!.message, `spec.replicas ${value}`).toMatch(/replicas must be/);
    }
  });

  const postParsed = (payload: string) => post(payload, JSON.parse(payload));

  it('duplicate keys: the last one wins, as in Go encoding/json', async () => {
    const text = JSON.stringify(cloneSetRequest());
    const post = (payload: string, _sent: unknown) => postParsed(payload);
    const operation = await post(text.replace('"operation":"InterpretReplica"', '"operation":"InterpretReplica","operation":"Bogus"'), undefined);
    expect(operation.status).toMatchObject({ code: 400, message: expect.stringMatching(/"Bogus"/) });
    const uid = await post(text.replace('"uid":"', '"uid":"first","uid":"'), undefined);
    expect(uid).toMatchObject({ uid: cloneSetRequest().request.uid, successful: true });
    const replicas = await post(text.replace(/"replicas":4,/, '"replicas":4,"replicas":7,'), undefined);
    expect(replicas).toMatchObject({ successful: true, replicas: 7 });
  });
});
