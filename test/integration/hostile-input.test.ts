// The attacks of the "hard bounds" issue against the real server process, run with attack-harness.ts:
// each attack gets a well-formed envelope within its deadline (plus a small grace) while ordinary traffic
// beside it stays under 300 ms and the server's memory under 1 GB. README.md ("Reliability") lists them.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_REQUEST_TIMEOUT_MS } from '../../src/server/app.ts';
import { attackRequest, beside, customization, example, GRACE_MS, health, interpret, LUA_TIMEOUT_MS, sleep } from './attack-harness.ts';
import { send, spawnServer, type SpawnedServer } from '../support/spawned-server.ts';

const MAX_CONNECTIONS = 300;

const CUSTOMIZATIONS: Record<string, string> = {
  'xpcall-loop.yaml': health('XpcallLoop', 'xpcall(function() while true do end end, function(m) while true do end end)\nreturn true'),
  'xpcall-alloc.yaml': health(
    'XpcallAlloc',
    'xpcall(function() error("x") end, function(m) local t = {} local i = 0 while true do i = i + 1 t[i] = { i } end end)\nreturn true',
  ),
  'sort.yaml': health(
    'SortBomb',
    'local t = {}\nfor i = 1, 100000 do t[i] = (i * 7919) % 100000 end\nwhile true do table.sort(t, function(a, b) return a > b end) end',
  ),
  'date.yaml': health('DateBomb', 'local f = string.format("%16777216s", "%Y")\nreturn #os.date(f) > 0'),
  'find.yaml': health(
    'FindBomb',
    'local s, p = "", "" for i = 1, 300 do s = s .. "a" end for i = 1, 12 do p = p .. "a-" end return string.find(s, p .. "b") ~= nil',
  ),
  'concat.yaml': health('ConcatBomb', 'local s = string.format("%1048576s", "")\nlocal t = {}\nfor i = 1, 512 do t[i] = s end\nreturn #table.concat(t) > 0'),
  'spinner.yaml': health('Spinner', 'while true do end'),
  'healthy.yaml': health('Healthy', 'return obj.status ~= nil'),
  'string-refs.yaml': customization(
    'StringRefs',
    'statusReflection',
    'ReflectStatus',
    'obj',
    'local s = string.format("%1048576s", "")\nlocal t = {}\nfor i = 1, 400 do t[i] = s end\nreturn t',
  ),
};

describe('hostile input against the real server', () => {
  let server: SpawnedServer;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kiw-hostile-'));
    for (const [file, text] of Object.entries(CUSTOMIZATIONS)) await writeFile(join(dir, file), text);
    server = await spawnServer([
      ...['--customizations', dir, '--lua-timeout', `${LUA_TIMEOUT_MS}ms`, '--lua-workers', '2', '--body-idle-timeout', '2s'],
      ...['--max-connections', String(MAX_CONNECTIONS)],
    ]);
    // Ready means the workers are up, so the first attack does not wait for them.
    for (let i = 0; i < 100 && (await send(server, { path: '/readyz' })).status !== 200; i++) await sleep(50);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('a quantity with a huge exponent or mantissa is refused at once', async () => {
    const envelope = example('cloneset-interpretreplica');
    const huge = `1${'0'.repeat(200_000)}`;
    envelope.request.object.spec.template.spec.containers[0].resources = {
      requests: { cpu: '1e100000', memory: huge, 'example.com/a': '1e100000', 'example.com/b': '1e100000', 'example.com/c': '1e100000' },
    };
    const { context, ms } = await beside(server, () => interpret(server, envelope));
    expect(context.response).toMatchObject({ successful: false, status: { code: 400 } });
    expect(ms).toBeLessThan(1000);
  });

  it.each([
    ['an endless error handler', 'XpcallLoop', /time limit|timed out/],
    ['tables allocated in an error handler', 'XpcallAlloc', /memory limit|time limit|timed out/],
    ['native sorts, one after another', 'SortBomb', /time limit|timed out|memory limit/],
    ['a backtracking pattern inside one native call', 'FindBomb', /time limit|timed out/],
    ['table.concat of 512 × 1 MiB', 'ConcatBomb', /memory limit|time limit|timed out/],
  ])('Lua: %s is stopped and named, within its time limit', async (_name, kind, limit) => {
    const { context, ms } = await beside(server, () => interpret(server, attackRequest(kind, `attack-${kind}`)));
    expect(context.response).toMatchObject({ successful: false, status: { code: 500 } });
    expect(context.response!.status!.message).toContain(`attack-${kind.toLowerCase()}`);
    expect(context.response!.status!.message).toMatch(limit);
    expect(ms).toBeLessThan(LUA_TIMEOUT_MS + GRACE_MS);
  });

  it('Lua: os.date with a 16 MiB format answers within its time limit', async () => {
    const { context, ms } = await beside(server, () => interpret(server, attackRequest('DateBomb', 'attack-date')));
    // Formatting is linear: it may finish (a successful answer) or be stopped; either way in time.
    if (!context.response!.successful) expect(context.response!.status!.message).toMatch(/attack-datebomb/);
    expect(ms).toBeLessThan(LUA_TIMEOUT_MS + GRACE_MS);
  });

  it('Lua: a result holding 400 references to one 1 MiB string is stopped at the memory limit', async () => {
    const { context, ms } = await beside(server, () => interpret(server, attackRequest('StringRefs', 'attack-refs', 'InterpretStatus')));
    expect(context.response).toMatchObject({ successful: false, status: { code: 500 } });
    expect(context.response!.status!.message).toMatch(/memory limit|over the limit|time limit|timed out/);
    expect(ms).toBeLessThan(LUA_TIMEOUT_MS + GRACE_MS);
  });

  it.each([3, 8])('Lua: %i concurrent runaway calls do not hold up other customizations, probes or /healthz', async (count) => {
    const agent = new Agent({ keepAlive: true, maxSockets: count + 1 });
    const { runaway, other } = await beside(server, async () => {
      const runaway = Array.from({ length: count }, (_, i) => interpret(server, attackRequest('Spinner', `spin-${count}-${i}`), agent));
      await sleep(50);
      const other = await interpret(server, attackRequest('Healthy', `healthy-${count}`), agent);
      return { runaway: await Promise.all(runaway), other };
    });
    agent.destroy();
    for (const r of runaway) expect(r.context.response).toMatchObject({ successful: false, status: { code: 500 } });
    expect(other.context.response).toMatchObject({ successful: true, healthy: true });
    // Behind the runaway calls by at most one time limit (queued calls are taken in turn across customizations).
    expect(other.ms).toBeLessThan(LUA_TIMEOUT_MS + GRACE_MS);
  });

  it('bodies that declare 8 MiB and stall hold no budget, and are cut after the idle timeout with 408', async () => {
    const stalled = await beside(server, async () => {
      const sockets = Array.from({ length: 6 }, (_, i) => {
        const socket = connect({ host: '127.0.0.1', port: server.port, servername: 'localhost', ca: server.ca, ALPNProtocols: ['http/1.1'] });
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        socket.on('error', () => undefined);
        const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
        socket.once('secureConnect', () =>
          socket.write(
            `POST /interpret HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 8388608\r\n\r\n{"apiVersion":"config.karmada.io/v1alpha1","request":{"uid":"stalled-${i}"`,
          ),
        );
        return closed;
      });
      return Promise.all(sockets);
    });
    for (const [i, text] of stalled.entries()) {
      expect(text).toMatch(/^HTTP\/1\.1 200 /);
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).response).toMatchObject({ uid: `stalled-${i}`, successful: false, status: { code: 408 } });
    }
  });

  it('500 connections that send nothing: those past --max-connections are refused at once, the rest closed after 10 s', async () => {
    const started = performance.now();
    const outcomes = await beside(server, () =>
      Promise.all(
        Array.from({ length: 500 }, () => {
          const socket = connect({ host: '127.0.0.1', port: server.port, servername: 'localhost', ca: server.ca, ALPNProtocols: ['http/1.1'] });
          let handshake = false;
          socket.once('secureConnect', () => (handshake = true));
          socket.on('error', () => undefined);
          return new Promise<{ handshake: boolean; closedAfterMs: number }>((resolve) =>
            socket.on('close', () => resolve({ handshake, closedAfterMs: performance.now() - started })),
          );
        }),
      ),
    );
    const refused = outcomes.filter((o) => !o.handshake);
    const idle = outcomes.filter((o) => o.handshake);
    // The probes' connections count too, so at least 200 are refused.
    expect(refused.length).toBeGreaterThanOrEqual(200);
    expect(idle.length).toBeGreaterThan(0);
    for (const o of refused) expect(o.closedAfterMs).toBeLessThan(FIRST_REQUEST_TIMEOUT_MS / 2);
    for (const o of idle) expect(o.closedAfterMs).toBeGreaterThanOrEqual(FIRST_REQUEST_TIMEOUT_MS - 100);
    for (const o of outcomes) expect(o.closedAfterMs).toBeLessThan(FIRST_REQUEST_TIMEOUT_MS + 3000);
    const metrics = await send(server, { path: '/metrics' });
    expect(Number(/^karmada_interpreter_connections_dropped_total\{listener="webhook"\} (\d+)$/m.exec(metrics.body)?.[1])).toBe(refused.length);
  }, 30_000);

  it('/preserve with {..a..a..a} over a status nested 300 levels deep fails that rule at the work cap', async () => {
    let status: Record<string, unknown> = { b: 0 };
    for (let i = 1; i < 300; i++) status = { a: status, b: i };
    const input = {
      rules: [{ aliasLabelName: 'x', jsonPath: '{..a..a..a}' }],
      observedObject: { apiVersion: 'attack.example.io/v1', kind: 'Unserved', metadata: { name: 'a' }, status },
    };
    const started = performance.now();
    const answer = await beside(server, () => send(server, { path: '/preserve', body: JSON.stringify(input) }));
    expect(answer.status).toBe(200);
    const result = JSON.parse(answer.body);
    expect(result.labels).toEqual({});
    expect(result.errors[0].message).toMatch(/jsonpath/);
    expect(performance.now() - started).toBeLessThan(LUA_TIMEOUT_MS + GRACE_MS + 500);
  });

  it('a 4 MB kind name is refused without being echoed or logged in full', async () => {
    const envelope = example('cloneset-interpretreplica');
    envelope.request.kind.kind = 'K'.repeat(4 * 1024 * 1024);
    const { context, bytes } = await beside(server, () => interpret(server, envelope));
    expect(context.response).toMatchObject({ successful: false, status: { code: 400 } });
    expect(bytes).toBeLessThan(8192);
    await sleep(300); // log lines are written in batches
    expect(Math.max(...server.logs.map((line) => JSON.stringify(line).length))).toBeLessThan(64 * 1024);
  });
});

describe('recording under hostile traffic', () => {
  let server: SpawnedServer;
  let dir: string;
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('rotation deletes only recordings, and sixty 8 MB AggregateStatus calls keep memory bounded', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kiw-record-'));
    await mkdir(join(dir, 'myproject'));
    for (const file of ['myproject/package-1.json', 'myproject/package-2.json', 'tsconfig.json']) await writeFile(join(dir, file), '{}');
    server = await spawnServer(['--record', dir, '--record-max-files', '5']);
    const envelope = example('cloneset-interpretreplica');
    envelope.request.operation = 'AggregateStatus';
    const item = { clusterName: 'member', applied: true, status: { replicas: 1, readyReplicas: 1, padding: 'x'.repeat(7 * 1024 * 1024) } };
    envelope.request.aggregatedStatus = [item];
    const agent = new Agent({ keepAlive: true, maxSockets: 6 });
    const body = JSON.stringify(envelope); // built once: the load generator shares this machine with the server
    await beside(server, async () => {
      let sent = 0;
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          for (; sent < 60; sent++) {
            const answer = await send(server, { path: '/interpret?timeout=30s', body, agent });
            expect(answer.status).toBe(200);
            expect(JSON.parse(answer.body).response.successful).toBe(true);
          }
        }),
      );
    });
    agent.destroy();
    await sleep(2000);
    const files = (await readdir(dir, { recursive: true })).map((f) => relative(dir, join(dir, f as string)));
    expect(files).toEqual(expect.arrayContaining(['myproject/package-1.json', 'myproject/package-2.json', 'tsconfig.json']));
    expect(files.filter((f) => f.endsWith('.json') && !f.startsWith('myproject') && f !== 'tsconfig.json').length).toBeLessThanOrEqual(5);
  }, 180_000);
});

describe('shutdown under load', () => {
  let server: SpawnedServer | undefined;
  afterAll(async () => server?.stop());

  it('8 keep-alive clients through SIGTERM with --shutdown-delay 2s: every request on an open connection gets an envelope', async () => {
    server = await spawnServer(['--shutdown-delay', '2s', '--shutdown-timeout', '10s']);
    const target = server;
    const body = JSON.stringify(example('cloneset-interpretreplica'));
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    let answered = 0;
    const lost: string[] = [];
    let refusedOrNew = 0;
    const post = () =>
      new Promise<void>((resolve) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: target.port,
            servername: 'localhost',
            ca: target.ca,
            method: 'POST',
            path: '/interpret?timeout=10s',
            agent,
            headers: { 'content-type': 'application/json' },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk) => (text += chunk));
            res.on('end', () => {
              if (res.statusCode === 200 && JSON.parse(text).response?.successful === true) answered++;
              else lost.push(`${res.statusCode} ${text.slice(0, 100)}`);
              resolve();
            });
          },
        );
        req.on('error', (error: NodeJS.ErrnoException) => {
          // A connection refused, or reset while it was being opened as the listener closed, carried no
          // request the server had accepted: the caller sees it fail and tries another replica. A request on
          // a connection that was already open must never fail.
          if (req.reusedSocket) lost.push(`${error.code} on an open connection`);
          else refusedOrNew++;
          setTimeout(resolve, 20);
        });
        req.end(body);
      });
    let running = true;
    const clients = Array.from({ length: 8 }, async () => {
      while (running) await post();
    });
    await sleep(500);
    target.child.kill('SIGTERM');
    const exit = await target.exited;
    running = false;
    await Promise.all(clients);
    agent.destroy();
    expect(exit.code).toBe(0);
    expect(lost).toEqual([]);
    expect(answered).toBeGreaterThan(50);
    expect(refusedOrNew).toBeGreaterThan(0); // the clients did keep trying after the listener closed
  }, 60_000);
});
