// /interpret is served two ways (src/server/interpret-server.ts): straight from node's request event on
// real connections, and through fastify's route (inject(), and anything fastify must answer itself).
// Both must give Karmada the same bytes; the fast path must hand everything else back to fastify.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/interpreter/setup.ts';
import { buildApp } from '../../src/server/app.ts';
import { BodyBudget } from '../../src/server/body-budget.ts';
import { interpretServerFactory, isInterpretPath } from '../../src/server/interpret-server.ts';
import { closeListening, sendHttp, silentLogger, testApp, testRegistry } from '../support/app.ts';
import { karmadaRequest, workloadObject } from '../support/workload-module.ts';

afterAll(closeListening);

const JSON_TYPE = { 'content-type': 'application/json' };

describe('isInterpretPath', () => {
  it.each([
    ['/interpret', true],
    ['/interpret?timeout=10s', true],
    ['/interpret/', true],
    ['/interpret/apps.kruise.io/cloneset?timeout=1m0s', true],
    ['/interpreter', false],
    ['/interpretx?timeout=1s', false],
    ['/healthz', false],
    ['/', false],
    [undefined, false],
  ])('%s -> %s', (url, expected) => {
    expect(isInterpretPath(url)).toBe(expected);
  });
});

describe('both transports answer the same', () => {
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
    ['a path below /interpret with a timeout', { url: '/interpret/workloads?timeout=30s', body: JSON.stringify(karmadaRequest('InterpretHealth', workloadObject())) }],
  ];

  it.each(cases)('%s', async (_name, c) => {
    const url = c.url ?? '/interpret?timeout=5s';
    const headers = c.headers ?? JSON_TYPE;
    const injected = await app.inject({ method: 'POST', url, headers, payload: c.body });
    const overHttp = await sendHttp(app, { url, headers, body: c.body });
    expect(overHttp.status).toBe(200);
    expect(injected.statusCode).toBe(200);
    expect(overHttp.headers['content-type']).toBe('application/json');
    expect(overHttp.body).toBe(injected.body);
    expect(Number(overHttp.headers['content-length'])).toBe(Buffer.byteLength(overHttp.body));
    expect(JSON.parse(overHttp.body).kind).toBe('ResourceInterpreterContext');
  });
});

describe('requests the fast path leaves to fastify', () => {
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
    const answer = await sendHttp(app, { url: '/interpret', headers: { ...JSON_TYPE, connection: 'keep-alive' }, body: JSON.stringify(karmadaRequest('InterpretHealth', workloadObject())) });
    expect(answer.headers.connection).toBe('keep-alive');
  });

  it('once fastify is closing, /interpret goes to fastify (which answers 503 with Connection: close)', async () => {
    let closing = false;
    const seenByFastify: string[] = [];
    const factory = interpretServerFactory({
      https: null,
      bodyLimit: 1024,
      bodyBudget: new BodyBudget(1 << 20),
      keepAliveTimeoutMs: 1000,
      requestTimeoutMs: 60_000,
      endpoint: async () => '{"answered":"fast path"}',
      logger: silentLogger,
      closing: () => closing,
      draining: () => false,
    });
    const server = factory((request, response) => {
      seenByFastify.push(`${request.method} ${request.url}`);
      response.writeHead(503, { connection: 'close' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as import('node:net').AddressInfo;
      const post = () => fetch(`http://127.0.0.1:${port}/interpret?timeout=1s`, { method: 'POST', headers: JSON_TYPE, body: '{}' });
      const before = await post();
      expect(before.status).toBe(200);
      expect(await before.text()).toBe('{"answered":"fast path"}');
      closing = true;
      expect((await post()).status).toBe(503);
      expect(seenByFastify).toEqual(['POST /interpret?timeout=1s']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('request timeout', () => {
  /** An HTTP request over a raw socket: `head` sent at once, then nothing more; resolves with what came back when the server closes. */
  function stalledRequest(port: number, head: string): Promise<{ text: string; afterMs: number }> {
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(head));
      let text = '';
      socket.on('data', (chunk) => (text += String(chunk)));
      socket.on('close', () => resolve({ text, afterMs: Date.now() - started }));
      socket.on('error', reject);
    });
  }

  it('closes a connection whose request body stops arriving, with 408, while answers that take long are not cut', async () => {
    const slowAnswerMs = 900;
    const factory = interpretServerFactory({
      https: null,
      bodyLimit: 1 << 20,
      bodyBudget: new BodyBudget(1 << 20),
      keepAliveTimeoutMs: 5000,
      requestTimeoutMs: 300,
      connectionsCheckingIntervalMs: 50,
      endpoint: async () => {
        await new Promise((resolve) => setTimeout(resolve, slowAnswerMs));
        return '{"answered":true}';
      },
      logger: silentLogger,
      closing: () => false,
      draining: () => false,
    });
    const server = factory((_request, response) => response.writeHead(404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const head = 'POST /interpret HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"apiVersion":';
      const [stalled, slow] = await Promise.all([
        stalledRequest(port, head),
        fetch(`http://127.0.0.1:${port}/interpret`, { method: 'POST', headers: JSON_TYPE, body: '{}' }).then(async (answer) => ({ status: answer.status, text: await answer.text() })),
      ]);
      expect(stalled.text).toMatch(/^HTTP\/1\.1 408 /);
      // Closed by the request timeout (0.3 s, checked every 50 ms), not by the 5 s keep-alive timeout.
      expect(stalled.afterMs).toBeGreaterThanOrEqual(250);
      expect(stalled.afterMs).toBeLessThan(3000);
      expect(slow).toEqual({ status: 200, text: '{"answered":true}' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('is a minute for the server buildApp makes, above any timeout Karmada can set (30 s)', () => {
    const app = testApp();
    expect(app.server.requestTimeout).toBe(60_000);
    expect(app.server.headersTimeout).toBe(60_000);
    expect(app.server.keepAliveTimeout).toBe(95_000);
  });
});

describe('listening', () => {
  it('logs an https:// address when serving TLS (our serverFactory creates the server, not fastify)', async () => {
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
        const requests = ['first', 'second'].map((name, i) => karmadaRequest('InterpretHealth', { ...workloadObject(), metadata: { name, namespace: 'default' } }, { uid: `0000000${i}-print` }));
        // Sent together: the second is queued behind the first in the Lua runtime, so a context read
        // when the script runs (instead of when the call was made) would mix them up.
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
        loaded.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('body budget', () => {
  /** A POST /interpret over a raw socket with `Connection: close`; `sent` bytes of the body go now, the rest on finish(). */
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

  const envelopeOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { response: { uid: string; successful: boolean } };
  const gauge = async (app: ReturnType<typeof testApp>, name: string) => Number(new RegExp(`^karmada_interpreter_${name} (\\S+)$`, 'm').exec((await app.inject('/metrics')).body)?.[1]);
  const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('a call that does not fit waits unread until the one before it is answered, and a call whose client left never runs', async () => {
    const body = JSON.stringify(karmadaRequest('InterpretHealth', workloadObject()));
    const size = Buffer.byteLength(body);
    // Room for one such body, not two.
    const app = testApp({ inflightBodyLimit: size + size / 2 });
    await sendHttp(app, { method: 'GET', url: '/healthz' });
    const { port } = app.server.address() as AddressInfo;

    const first = rawCall(port, body, 10);
    await settle(100);
    const second = rawCall(port, body);
    const leaving = rawCall(port, body);
    await settle(200);
    expect([first.answered(), second.answered(), leaving.answered()]).toEqual([false, false, false]);
    expect(await gauge(app, 'request_body_bytes_in_flight')).toBe(size);
    expect(await gauge(app, 'requests_waiting_for_body_budget')).toBe(2);

    leaving.abandon();
    await settle(100);
    expect(await gauge(app, 'requests_waiting_for_body_budget')).toBe(1);

    first.finish();
    const answers = await Promise.all([first.answer, second.answer]);
    for (const text of answers) expect(envelopeOf(text).response).toMatchObject({ successful: true });
    await settle(50);
    expect(await gauge(app, 'request_body_bytes_in_flight')).toBe(0);
    expect(await gauge(app, 'requests_waiting_for_body_budget')).toBe(0);
    const after = await sendHttp(app, { url: '/interpret', headers: JSON_TYPE, body });
    expect(JSON.parse(after.body).response.successful).toBe(true);
  });

  it('bodies fastify reads (/preserve) wait for the same budget, and GET /metrics does not', async () => {
    const body = JSON.stringify(karmadaRequest('InterpretHealth', workloadObject()));
    const app = testApp({ inflightBodyLimit: Buffer.byteLength(body) });
    await sendHttp(app, { method: 'GET', url: '/healthz' });
    const { port } = app.server.address() as AddressInfo;
    const first = rawCall(port, body, 10);
    await settle(100);
    const preview = rawCall(port, JSON.stringify({ rules: [], observedObject: workloadObject() }), undefined, '/preserve');
    await settle(200);
    expect(preview.answered()).toBe(false);
    expect(await gauge(app, 'requests_waiting_for_body_budget')).toBe(1);
    first.finish();
    expect(envelopeOf(await first.answer).response.successful).toBe(true);
    const previewText = await preview.answer;
    expect(previewText).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(previewText.slice(previewText.indexOf('\r\n\r\n') + 4))).toEqual({ labels: {}, errors: [], warnings: [] });
    expect(await gauge(app, 'request_body_bytes_in_flight')).toBe(0);
  });
});
