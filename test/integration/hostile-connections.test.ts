// Connection attacks against the real server process, run with attack-harness.ts (ordinary traffic beside
// each one stays under 300 ms, memory under 1 GB, /healthz alive): idle keep-alive connections filling
// --max-connections, and a flood of pipelined requests on one connection. README.md ("Reliability").
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { beside, sleep } from './attack-harness.ts';
import { send, spawnServer, type SpawnedServer } from '../support/spawned-server.ts';

const MAX_CONNECTIONS = 300;
const HEALTHZ = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n';

let server: SpawnedServer;
/** Every connection a test opened, closed after it (passed or not) so the next test starts below the maximum. */
const opened: TLSSocket[] = [];

beforeAll(async () => {
  server = await spawnServer(['--max-connections', String(MAX_CONNECTIONS)]);
}, 60_000);

afterEach(async () => {
  for (const socket of opened.splice(0)) socket.destroy();
  await sleep(200); // the server sees them close
});

afterAll(async () => {
  await server?.stop();
});

interface Connection {
  socket: TLSSocket;
  /** Answers received so far (their status lines). */
  answers: () => string[];
  closed: Promise<void>;
}

/** A TLS connection that sends `requests` at once (pipelined) and collects what comes back. */
function open(requests: string): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port, servername: 'localhost', ca: server.ca, ALPNProtocols: ['http/1.1'] });
    opened.push(socket);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('secureConnect', () => {
      socket.write(requests);
      resolve({ socket, answers: () => text.match(/HTTP\/1\.1 \d{3}/g) ?? [], closed });
    });
    socket.once('close', () => reject(new Error('closed before the TLS handshake finished')));
  });
}

async function answeredAll(connection: Connection, count: number): Promise<void> {
  while (connection.answers().length < count) {
    const closed = await Promise.race([connection.closed.then(() => true), sleep(20).then(() => false)]);
    if (closed && connection.answers().length < count) return;
  }
}

function metric(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('connection attacks beside ordinary traffic', () => {
  it(`${MAX_CONNECTIONS - 2} connections that send one GET /healthz and stay idle: new connections are still accepted`, async () => {
    const { idle, newcomers } = await beside(server, async () => {
      // Opened in batches: the attack is the idle connections, not a flood of handshakes.
      const idle: Connection[] = [];
      while (idle.length < MAX_CONNECTIONS - 2) {
        const batch = await Promise.all(Array.from({ length: Math.min(25, MAX_CONNECTIONS - 2 - idle.length) }, () => open(HEALTHZ)));
        await Promise.all(batch.map((connection) => answeredAll(connection, 1)));
        idle.push(...batch);
      }
      await sleep(1200); // idle for longer than the second a connection keeps before it can make room
      // With the probes' two connections the maximum is open: each newcomer takes an idle one's place.
      const newcomers = [];
      for (let i = 0; i < 20; i++) {
        const connection = await open(HEALTHZ);
        await answeredAll(connection, 1);
        newcomers.push(connection);
      }
      return { idle, newcomers };
    });
    for (const connection of newcomers) expect(connection.answers()).toEqual(['HTTP/1.1 200']);
    for (const connection of idle) expect(connection.answers()).toEqual(['HTTP/1.1 200']);
    const metrics = (await send(server, { path: '/metrics' })).body;
    const closed = metric(metrics, 'karmada_interpreter_connections_closed_total', 'listener="webhook",reason="idle_at_limit"');
    expect(closed).toBeGreaterThanOrEqual(1);
    expect(closed).toBeLessThanOrEqual(newcomers.length + 2);
    expect(metric(metrics, 'karmada_interpreter_connections_dropped_total', 'listener="webhook"')).toBe(0);
    expect(server.logs.some((line) => line.msg?.startsWith('idle keep-alive connections closed to make room'))).toBe(true);
  }, 60_000);

  it('1,000 requests pipelined on one connection are all answered', async () => {
    const connection = await beside(server, async () => {
      const connection = await open(HEALTHZ.repeat(1000));
      await answeredAll(connection, 1000);
      return connection;
    });
    expect(connection.answers()).toHaveLength(1000);
    expect(new Set(connection.answers())).toEqual(new Set(['HTTP/1.1 200']));
    expect(server.logs.some((line) => line.msg?.includes('requests unanswered'))).toBe(false);
  }, 60_000);
});
