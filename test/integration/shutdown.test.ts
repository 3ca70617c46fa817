// SIGTERM under load, against the real CLI in a child process: readiness turns 503 first, the server
// keeps answering (new connections too) during --shutdown-delay with Connection: close, then stops
// accepting, lets an in-flight request (its body still arriving) finish, closes idle keep-alive
// connections instead of waiting 95 s for them, and exits 0. No request that was sent is lost.
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { connect } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { send, spawnServer, type Answer, type SpawnedServer } from '../support/spawned-server.ts';

const REQUEST = readFileSync(new URL('../../examples/requests/cloneset-interpretreplica.json', import.meta.url), 'utf8');
const DELAY_MS = 1500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('graceful shutdown of the real process', () => {
  let server: SpawnedServer | undefined;
  afterAll(async () => server?.stop());

  it('SIGTERM under load: unready first, serves through the delay, finishes in-flight work, closes keep-alive connections, exits 0', async () => {
    server = await spawnServer(['--shutdown-delay', `${DELAY_MS}ms`, '--shutdown-timeout', '10s']);
    const target = server;

    // An idle keep-alive connection, used once before SIGTERM.
    const idle = connect({ host: '127.0.0.1', port: target.port, servername: 'localhost', ca: target.ca, ALPNProtocols: ['http/1.1'] });
    let idleClosedAt: number | undefined;
    idle.on('close', () => (idleClosedAt = performance.now()));
    idle.on('error', () => undefined);
    const idleAnswer = new Promise<string>((resolve) => idle.once('data', (d) => resolve(String(d))));
    await new Promise((resolve) => idle.once('secureConnect', resolve));
    idle.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    expect(await idleAnswer).toMatch(/^HTTP\/1\.1 200/);

    // A request whose body is still arriving when the server starts closing.
    let finishSlowBody!: () => void;
    const slow = send(target, {
      path: '/interpret?timeout=30s',
      agent: new Agent({ keepAlive: true }),
      writeBody(write, end) {
        write(REQUEST.slice(0, 100));
        finishSlowBody = () => {
          write(REQUEST.slice(100));
          end();
        };
      },
    });

    // Load: keep-alive clients sending continuously; they stop once "endpoints" would have dropped us
    // (half the delay after /readyz turned 503), as the Service does in a cluster.
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const answers: Array<Answer & { at: number }> = [];
    const errors: Error[] = [];
    let stopLoad = false;
    const workers = Array.from({ length: 4 }, async () => {
      while (!stopLoad) {
        try {
          answers.push({ ...(await send(target, { path: '/interpret?timeout=10s', body: REQUEST, agent })), at: performance.now() });
        } catch (error) {
          errors.push(error as Error);
        }
      }
    });
    await sleep(500);

    const sigtermAt = performance.now();
    target.child.kill('SIGTERM');
    let unreadyAt: number | undefined;
    while (unreadyAt === undefined && performance.now() - sigtermAt < DELAY_MS) {
      const probe = await send(target, { path: '/readyz' });
      if (probe.status === 503) {
        unreadyAt = performance.now();
        expect(JSON.parse(probe.body).checks.shutdown).toEqual({ ok: false, detail: 'received SIGTERM' });
      }
    }
    expect(unreadyAt).toBeDefined();
    await sleep(DELAY_MS / 2);
    stopLoad = true;
    await Promise.all(workers);
    const drainingAnswers = answers.filter((a) => a.at > unreadyAt!);
    expect(drainingAnswers.length).toBeGreaterThan(0);
    // Still serving during the delay, each answer asking the client to reconnect elsewhere.
    for (const a of drainingAnswers) expect(a.headers.connection).toBe('close');

    // Wait until the server stopped accepting, then finish the in-flight body.
    const closingDeadline = performance.now() + DELAY_MS + 3000;
    while (!target.logs.some((l) => /^closing/.test(l.msg)) && performance.now() < closingDeadline) await sleep(20);
    expect(target.logs.some((l) => /^closing/.test(l.msg))).toBe(true);
    await sleep(200);
    await expect(send(target, { path: '/healthz' })).rejects.toThrow(/ECONNREFUSED/);
    finishSlowBody();
    const slowAnswer = await slow;
    expect(slowAnswer.status).toBe(200);
    expect(JSON.parse(slowAnswer.body).response).toMatchObject({ successful: true, replicas: expect.any(Number) });
    expect(slowAnswer.headers.connection).toBe('close');

    const exit = await target.exited;
    expect(exit.code).toBe(0);
    expect(exit.at - sigtermAt).toBeLessThan(DELAY_MS + 5000); // not the 95 s keep-alive timeout
    expect(idleClosedAt).toBeDefined();
    expect(target.logs.map((l) => l.msg)).toContain('stopped');

    // No request lost: every request sent got a successful envelope.
    expect(errors.map((e) => e.message)).toEqual([]);
    expect(answers.length).toBeGreaterThan(10);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body).response.successful).toBe(true);
    }
  }, 90_000);
});
