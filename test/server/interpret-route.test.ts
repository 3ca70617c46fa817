// POST /interpret over real connections and through inject(): the same route, the same bytes; what
// the server does with connections (draining, timeouts) and with bodies (the byte budget, stalls).
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { Registry } from '../../src/interpreter/registry.ts';
import { createRegistry } from '../../src/interpreter/setup.ts';
import type { KindInterpreter } from '../../src/interpreter/types.ts';
import { buildApp } from '../../src/server/app.ts';
import { MAX_BODY_VALUES, MAX_OBJECT_KEYS } from '../../src/server/body-shape.ts';
import { closeListening, sendHttp, testApp, testRegistry } from '../support/app.ts';
import { karmadaRequest, workloadObject } from '../support/workload-module.ts';

afterAll(closeListening);

const JSON_TYPE = { 'content-type': 'application/json' };

describe('a real connection and inject() answer the same', () => {
  const app = testApp({ bodyLimit: 4096 });
  const cases: Array<[string, { url?: string; headers?: Record<string, string>; body: string }]> = [
    ['a successful ReviseReplica', { body: JSON.stringify(karmadaRequest('ReviseReplica', workloadObject(), { replicas: 2 })) }],
    ['a read-only operation', { body: JSON.stringify(karmadaRequest('InterpretReplica', workloadObject())) }],
    ['invalid JSON', { body: '{"request": {"uid": "abc", ' }],
    ['a wrong content type', { headers: { 'content-type': 'text/plain' }, body: JSON.stringify(karmadaRequest('InterpretHealth', workloadObject())) }],
    ['an empty body', { body: '' }],
    ['a body over the limit', { body: JSON.stringify(karmadaRequest('InterpretReplica', { ...workloadObject(), spec: { padding: 'x'.repeat(8000) } })) }],
    ['an unknown kind', { body: JSON.stringify(karmadaRequest('InterpretReplica', { ...workloadObject(), kind: 'Nope' })) }],
    ['Prune', { body: JSON.stringify(karmadaRequest('Prune', workloadObject())) }],
    [
      'a path below /interpret with a timeout',
      { url: '/interpret/workloads?timeout=30s', body: JSON.stringify(karmadaRequest('InterpretHealth', workloadObject())) },
    ],
  ];

  it.each(cases)('%s', async (_name, c) => {
    const url = c.url ?? '/interpret?timeout=5s';
    const headers = c.headers ?? JSON_TYPE;
    const injected = await app.inject({ method: 'POST', url, headers, payload: c.body });
    const overHttp = await sendHttp(app, { url, headers, body: c.body });
    expect(overHttp.status).toBe(200);
    expect(injected.statusCode).toBe(200);
    expect(overHttp.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(overHttp.body).toBe(injected.body);
    expect(Number(overHttp.headers['content-length'])).toBe(Buffer.byteLength(overHttp.body));
    expect(JSON.parse(overHttp.body).kind).toBe('ResourceInterpreterContext');
  });
});

describe('other requests', () => {
  const app = testApp();

  it('GET /interpret is a 404 from fastify, not an interpreter answer', async () => {
    const answer = await sendHttp(app, { method: 'GET', url: '/interpret' });
    expect(answer.status).toBe(404);
  });

  it('POST to a path that only starts like /interpret is a 404', async () => {
    const answer = await sendHttp(app, { url: '/interpretx', headers: JSON_TYPE, body: '{}' });
    expect(answer.status).toBe(404);
  });

  it('probes are still fastify routes', async () => {
    const answer = await sendHttp(app, { method: 'GET', url: '/healthz' });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'ok' });
  });
});

describe('shutdown', () => {
  it('while draining, interpreter answers and probes ask the client to reconnect', async () => {
    const app = testApp({ draining: () => true });
    const answer = await sendHttp(app, { url: '/interpret', headers: JSON_TYPE, body: JSON.stringify(karmadaRequest('InterpretHealth', workloadObject())) });
    expect(answer.status).toBe(200);
    expect(answer.headers.connection).toBe('close');
    expect((await sendHttp(app, { method: 'GET', url: '/healthz' })).headers.connection).toBe('close');
  });

  it('not draining: keep-alive', async () => {
    const app = testApp();
    const answer = await sendHttp(app, {
      url: '/interpret',
      headers: { ...JSON_TYPE, connection: 'keep-alive' },
      body: JSON.stringify(karmadaRequest('InterpretHealth', workloadObject())),
    });
    expect(answer.headers.connection).toBe('keep-alive');
  });
});

describe('timeouts', () => {
  it('a request must arrive within a minute, above any timeout Karmada can set (30 s); keep-alive outlasts Go clients (90 s)', () => {
    const app = testApp();
    expect(app.server.requestTimeout).toBe(60_000);
    expect(app.server.keepAliveTimeout).toBe(95_000);
  });

  it('a body that stops arriving is answered 408 (an envelope with its uid) and its connection closed', async () => {
    const app = testApp({ bodyIdleMs: 200 });
    await sendHttp(app, { method: 'GET', url: '/healthz' });
    const { port } = app.server.address() as AddressInfo;
    const body = JSON.stringify(karmadaRequest('InterpretHealth', workloadObject(), { uid: 'stalled-uid' }));
    const stalled = rawCall(port, body, body.indexOf('stalled-uid') + 20);
    const text = await stalled.answer;
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(envelopeOf(text).response).toMatchObject({
      uid: 'stalled-uid',
      successful: false,
      status: { code: 408, message: 'the request body stopped arriving for 200 ms' },
    });
    expect(await gauge(app, 'request_body_bytes_in_flight')).toBe(0);
  });
});

describe('listening', () => {
  it('logs an https:// address when serving TLS, and gives TLS handshakes 10 s', async () => {
    const { generateSelfSigned } = await import('../../src/server/certificates.ts');
    const pair = await generateSelfSigned();
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = buildApp({ registry: testRegistry(), logger: pino({ level: 'info' }, sink), https: { cert: pair.certPem, key: pair.keyPem } });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      expect(lines.join('')).toMatch(/Server listening at https:\/\/127\.0\.0\.1:\d+/);
      // node keeps the option under a symbol; a client that never finishes its handshake is cut after it.
      const handshake = Object.getOwnPropertySymbols(app.server).find((symbol) => symbol.description === 'handshake-timeout')!;
      expect((app.server as unknown as Record<symbol, number>)[handshake]).toBe(10_000);
    } finally {
      await app.close();
    }
  });
});

describe('the log line', () => {
  it("names the request's namespace and name (from the object's metadata when the request leaves them out), clipped", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const app = buildApp({ registry: testRegistry(), logger: pino({ level: 'info' }, sink) });
    try {
      const given = karmadaRequest('InterpretHealth', { ...workloadObject(), metadata: { name: 'web', namespace: 'shop' } }, { uid: 'log-given' });
      const fromObject = karmadaRequest('InterpretHealth', { ...workloadObject(), metadata: { name: 'api', namespace: 'team-a' } }, { uid: 'log-object' });
      delete (fromObject.request as Record<string, unknown>).name;
      delete (fromObject.request as Record<string, unknown>).namespace;
      // request.name is refused past 253 characters; the object's metadata.name is not checked for length.
      const long = 'n'.repeat(300);
      const clipped = karmadaRequest('InterpretHealth', { ...workloadObject(), metadata: { name: long, namespace: 'default' } }, { uid: 'log-long' });
      delete (clipped.request as Record<string, unknown>).name;
      for (const body of [given, fromObject, clipped]) await sendHttp(app, { url: '/interpret', headers: JSON_TYPE, body: JSON.stringify(body) });
      const line = (uid: string) => lines.find((l) => l.msg === 'interpreted' && l.uid === uid);
      expect(line('log-given')).toMatchObject({ namespace: 'shop', name: 'web', kind: 'Workload', operation: 'InterpretHealth', code: 200 });
      expect(line('log-object')).toMatchObject({ namespace: 'team-a', name: 'api' });
      expect(line('log-long')?.name).toBe(`${'n'.repeat(256)}… (44 more characters)`);
    } finally {
      await app.close();
    }
  });
});

describe('Lua print', () => {
  it('is logged with the uid of the request whose script printed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kiw-print-'));
    try {
      await writeFile(
        join(dir, 'printer.yaml'),
        `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: printer
spec:
  target:
    apiVersion: workload.example.io/v1alpha1
    kind: Workload
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          print("checking", observedObj.metadata.name)
          return true
        end
`,
      );
      const loaded = await createRegistry({ customizations: [dir] });
      const lines: Array<Record<string, unknown>> = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      });
      const app = buildApp({ registry: loaded.registry, logger: pino({ level: 'debug' }, sink) });
      try {
        const requests = ['first', 'second'].map((name, i) =>
          karmadaRequest('InterpretHealth', { ...workloadObject(), metadata: { name, namespace: 'default' } }, { uid: `0000000${i}-print` }),
        );
        // Sent together: both are in flight at once, so a context not carried with each call would mix them up.
        const answers = await Promise.all(requests.map((r) => sendHttp(app, { url: '/interpret', headers: JSON_TYPE, body: JSON.stringify(r) })));
        for (const answer of answers) expect(JSON.parse(answer.body).response.healthy).toBe(true);
        const prints = lines.filter((l) => l.msg === 'lua print');
        expect(prints.map((l) => [l.uid, l.print])).toEqual(
          expect.arrayContaining([
            ['00000000-print', 'checking\tfirst'],
            ['00000001-print', 'checking\tsecond'],
          ]),
        );
        expect(prints).toHaveLength(2);
      } finally {
        await app.close();
        await loaded.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('body budget', () => {
  it('counts bytes as they arrive: senders that declare 8 MiB and go quiet hold only what they sent', async () => {
    const body = JSON.stringify(karmadaRequest('InterpretHealth', workloadObject()));
    const app = testApp({ inflightBodyLimit: 64 * 1024, bodyIdleMs: 5000 });
    await sendHttp(app, { method: 'GET', url: '/healthz' });
    const { port } = app.server.address() as AddressInfo;
    const quiet = Array.from({ length: 6 }, () => rawCall(port, 'x'.repeat(8 * 1024 * 1024), 10));
    await settle(100);
    const ordinary = await sendHttp(app, { url: '/interpret?timeout=2s', headers: JSON_TYPE, body });
    expect(JSON.parse(ordinary.body).response.successful).toBe(true);
    expect(await gauge(app, 'request_body_bytes_in_flight')).toBe(60);
    for (const q of quiet) q.abandon();
  });

  it('past the budget, later bodies pause until answers give bytes back; the oldest always proceeds', async () => {
    const body = JSON.stringify(karmadaRequest('InterpretHealth', workloadObject()));
    const size = Buffer.byteLength(body);
    const app = testApp({ inflightBodyLimit: size });
    await sendHttp(app, { method: 'GET', url: '/healthz' });
    const { port } = app.server.address() as AddressInfo;
    const first = rawCall(port, body, size - 10); // most of it: the budget is nearly used
    await settle(100);
    const second = rawCall(port, body, size - 10); // takes the count past the budget: paused
    await settle(100);
    expect(await gauge(app, 'requests_waiting_for_body_budget')).toBe(1);
    second.finish(); // its last bytes wait in the socket while it is paused
    await settle(100);
    expect(second.answered()).toBe(false);
    first.finish();
    const answers = await Promise.all([first.answer, second.answer]);
    for (const text of answers) expect(envelopeOf(text).response).toMatchObject({ successful: true });
    await settle(50);
    expect(await gauge(app, 'request_body_bytes_in_flight')).toBe(0);
    expect(await gauge(app, 'requests_waiting_for_body_budget')).toBe(0);
  });

  it('/preserve bodies count against the same budget, and give their bytes back', async () => {
    const app = testApp();
    const answer = await app.inject({
      method: 'POST',
      url: '/preserve',
      headers: JSON_TYPE,
      payload: JSON.stringify({ rules: [], observedObject: workloadObject() }),
    });
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ labels: {}, errors: [], warnings: [] });
    expect(await gauge(app, 'request_body_bytes_in_flight')).toBe(0);
  });
});

describe('bounds on what a body holds', () => {
  const labels = Object.fromEntries(Array.from({ length: MAX_OBJECT_KEYS + 1 }, (_, i) => [`k${i}`, 'v']));

  it('a body with an object past the keys bound is refused with a 400 envelope naming it, carrying its uid', async () => {
    const app = testApp();
    const envelope = karmadaRequest('Retain', { ...workloadObject(), spec: { labels } }, { observedObject: workloadObject() });
    const answer = await sendHttp(app, { url: '/interpret?timeout=5s', headers: JSON_TYPE, body: JSON.stringify(envelope) });
    expect(JSON.parse(answer.body).response).toEqual({
      uid: envelope.request.uid,
      successful: false,
      status: { code: 400, message: `request has an object with more than ${MAX_OBJECT_KEYS} keys; Kubernetes objects have a few thousand at most` },
    });
    expect(await gauge(app, 'request_body_bytes_in_flight')).toBe(0);
  });

  it('a body past the values bound is refused the same way, the rest of it read and dropped', async () => {
    const app = testApp();
    const envelope = karmadaRequest('InterpretHealth', { ...workloadObject(), spec: { items: Array.from({ length: MAX_BODY_VALUES }, () => 1) } });
    const answer = await sendHttp(app, { url: '/interpret?timeout=5s', headers: JSON_TYPE, body: JSON.stringify(envelope) });
    expect(JSON.parse(answer.body).response).toMatchObject({ uid: envelope.request.uid, successful: false, status: { code: 400 } });
    expect(JSON.parse(answer.body).response.status.message).toContain(`more than ${MAX_BODY_VALUES} JSON values`);
    // The connection stays usable: the body was read to its end.
    expect((await sendHttp(app, { method: 'GET', url: '/healthz' })).status).toBe(200);
  });

  it('a body is counted from its first byte, also the bytes that arrived before it was long enough to be counted', async () => {
    // 20,001 short keys (about 220 KB): counting only from 64 KiB on would miss about 6,000 of them.
    const keys = Object.fromEntries(Array.from({ length: MAX_OBJECT_KEYS + 1 }, (_, i) => [`k${i}`, 0]));
    const body = JSON.stringify(karmadaRequest('InterpretHealth', { ...workloadObject(), spec: { keys } }));
    const app = testApp();
    await sendHttp(app, { method: 'GET', url: '/healthz' });
    const { port } = app.server.address() as AddressInfo;
    const call = rawCall(port, body, 30 * 1024);
    await settle(50);
    call.finish();
    expect(envelopeOf(await call.answer).response).toMatchObject({ successful: false, status: { code: 400 } });
  });

  it('a short body nested past the bound is refused too, from its parsed value (short bodies are not counted)', async () => {
    const app = testApp();
    let deep: unknown = {};
    for (let i = 0; i < 1001; i++) deep = { a: deep };
    const envelope = karmadaRequest('InterpretHealth', { ...workloadObject(), spec: { deep } });
    const answer = await sendHttp(app, { url: '/interpret?timeout=5s', headers: JSON_TYPE, body: JSON.stringify(envelope) });
    expect(JSON.parse(answer.body).response).toMatchObject({
      successful: false,
      status: { code: 400, message: expect.stringContaining('nests deeper than 1000') },
    });
    const preserve = await app.inject({
      method: 'POST',
      url: '/preserve',
      headers: JSON_TYPE,
      payload: JSON.stringify({ rules: [], observedObject: { ...workloadObject(), status: { deep } } }),
    });
    expect(preserve.statusCode).toBe(400);
    expect(JSON.parse(preserve.body).error).toContain('nests deeper than 1000');
  });

  it('/preserve refuses such a body with a 400 naming the bound', async () => {
    const app = testApp();
    const payload = JSON.stringify({ rules: [], observedObject: { ...workloadObject(), status: { labels } } });
    const answer = await app.inject({ method: 'POST', url: '/preserve', headers: JSON_TYPE, payload });
    expect(answer.statusCode).toBe(400);
    expect(JSON.parse(answer.body).error).toContain(`more than ${MAX_OBJECT_KEYS} keys`);
  });
});

/** A POST over a raw socket with `Connection: close`; `sent` bytes of the body go now, the rest on finish(). */
function rawCall(port: number, body: string, sent = body.length, path = '/interpret?timeout=10s') {
  const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  const socket = connect(port, '127.0.0.1', () => socket.write(head + body.slice(0, sent)));
  let text = '';
  socket.on('data', (chunk) => (text += String(chunk)));
  const answer = new Promise<string>((resolve, reject) => {
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  return { answer, finish: () => socket.write(body.slice(sent)), abandon: () => socket.destroy(), answered: () => text.length > 0 };
}

const envelopeOf = (text: string) =>
  JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { response: { uid: string; successful: boolean; status?: unknown } };
const gauge = async (app: ReturnType<typeof testApp>, name: string) =>
  Number(new RegExp(`^karmada_interpreter_${name} (\\S+)$`, 'm').exec((await app.inject('/metrics')).body)?.[1]);
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('recording and closing', () => {
  it('closing waits for exchanges answered before it to reach the recorder (start.ts flushes the recorder after close)', async () => {
    let closed = false;
    const recorded: boolean[] = [];
    const app = buildApp({ registry: testRegistry(), logger: pino({ level: 'silent' }), onExchange: () => void recorded.push(closed) });
    const body = readFileSync(new URL('../../examples/requests/cloneset-interpretreplica.json', import.meta.url), 'utf8');
    const answer = await app.inject({ method: 'POST', url: '/interpret', headers: { 'content-type': 'application/json' }, payload: body });
    expect(answer.statusCode).toBe(200);
    await app.close();
    closed = true;
    expect(recorded).toEqual([false]);
  });
});

describe('work that outlives its answer', () => {
  it('a large request answered 504 keeps its bytes counted until its work stops', async () => {
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    let revised = 0;
    const slow: KindInterpreter = {
      name: 'test:Slow',
      targets: [{ apiVersion: 'workload.example.io/v1alpha1', kind: 'Workload' }],
      async reviseReplica(obj) {
        await held;
        revised++;
        return { ...obj, spec: { ...obj.spec, replicas: 2 } };
      },
    };
    const app = buildApp({ registry: new Registry({ 'builtin-ts': [slow] }), logger: pino({ level: 'silent' }) });
    // Over 1 MiB, so its parse, interpretation and patch are steps of their own.
    const envelope = karmadaRequest('ReviseReplica', { ...workloadObject(), spec: { padding: 'x'.repeat(1100 * 1024) } }, { replicas: 2 });
    const answer = await sendHttp(app, { url: '/interpret?timeout=50ms', headers: JSON_TYPE, body: JSON.stringify(envelope) });
    expect(JSON.parse(answer.body).response).toMatchObject({ successful: false, status: { code: 504 } });
    // Answered, but the interpretation still holds the body: its bytes still count against the budget.
    expect(await gauge(app, 'request_body_bytes_in_flight')).toBeGreaterThan(1024 * 1024);
    finish();
    for (let i = 0; i < 100 && (await gauge(app, 'request_body_bytes_in_flight')) > 0; i++) await settle(10);
    expect(await gauge(app, 'request_body_bytes_in_flight')).toBe(0);
    expect(revised).toBe(1);
  });
});
