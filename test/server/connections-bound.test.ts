// ConnectionTracker's bound (src/server/connections.ts): with the maximum open, a newcomer takes the place
// of the longest-idle keep-alive connection; connections with a request in progress, still waiting for
// their first request or receiving their next one (bytes read since the last answer, over TLS any record)
// are never closed for it, and without an idle one the newcomer is refused. A connection node closes on a
// client error is reported with the requests it leaves unanswered.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionTracker, type UnansweredReport } from '../../src/server/connections.ts';
import { generateSelfSigned } from '../../src/server/certificates.ts';

let server: Server | undefined;
const held: ServerResponse[] = [];

interface Events {
  refused: number;
  idleClosed: number;
  unanswered: UnansweredReport[];
}

interface Started {
  port: number;
  tracker: ConnectionTracker;
  events: Events;
  /** The server's TCP sockets, in the order accepted (under the TLS ones over TLS). */
  accepted: Socket[];
}

/**
 * A server (HTTPS with `tls`) whose /hold requests are answered only when the test ends; the idle clock
 * is `clock.now`.
 */
async function start(max: number, clock: { now: number }, tls?: { key: string; cert: string }): Promise<Started> {
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/hold') held.push(response);
    else response.end('ok');
  };
  server = tls ? createTlsServer({ ...tls, keepAliveTimeout: 60_000 }, handler) : createServer({ keepAliveTimeout: 60_000 }, handler);
  const accepted: Socket[] = [];
  server.on('connection', (socket: Socket) => accepted.push(socket));
  const events: Events = { refused: 0, idleClosed: 0, unanswered: [] };
  const tracker = new ConnectionTracker(server, {
    firstRequestTimeoutMs: 60_000,
    maxConnections: max,
    now: () => clock.now,
    onRefused: () => events.refused++,
    onIdleClosed: () => events.idleClosed++,
    onUnanswered: (report) => events.unanswered.push(report),
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, tracker, events, accepted };
}

interface Client {
  socket: Socket;
  closed: Promise<void>;
  isClosed: () => boolean;
  received: () => string;
}

/** A client connection; with `over`, a TLS one over that TCP connection (its raw bytes can be written). */
function open(port: number, over?: Socket): Promise<Client> {
  return new Promise((resolve) => {
    const socket = over ? connectTls({ socket: over, rejectUnauthorized: false }) : connect(port, '127.0.0.1');
    let text = '';
    let closed = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => undefined); // a refused connection may see a reset
    const whenClosed = new Promise<void>((done) =>
      socket.once('close', () => {
        closed = true;
        done();
      }),
    );
    socket.once(over ? 'secureConnect' : 'connect', () => resolve({ socket, closed: whenClosed, isClosed: () => closed, received: () => text }));
  });
}

/** Sends GET / and waits for its answer: the connection is then idle, kept alive. */
async function answered(client: Client): Promise<void> {
  client.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  await vi.waitFor(() => expect(client.received()).toMatch(/ok$/));
}

afterEach(async () => {
  for (const response of held.splice(0)) response.end('late');
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe('at the maximum of open connections', () => {
  it('a newcomer takes the place of the longest-idle keep-alive connection', async () => {
    const clock = { now: 0 };
    const { port, tracker, events } = await start(3, clock);
    const oldest = await open(port);
    await answered(oldest);
    clock.now = 500;
    const recent = await open(port);
    await answered(recent);
    const busy = await open(port);
    busy.socket.write('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
    await vi.waitFor(() => expect(held).toHaveLength(1));
    clock.now = 5000; // both idle ones are past the grace; `oldest` has been idle longer
    const newcomer = await open(port);
    await answered(newcomer);
    await oldest.closed;
    expect(recent.isClosed()).toBe(false);
    expect(busy.isClosed()).toBe(false);
    expect(events).toEqual({ refused: 0, idleClosed: 1, unanswered: [] });
    await vi.waitFor(() => expect(tracker.open).toBe(3));
  });

  it('counts idleness from the last answer: a connection answered again is not the longest-idle', async () => {
    const clock = { now: 0 };
    const { port, events } = await start(2, clock);
    const reused = await open(port);
    await answered(reused);
    clock.now = 500;
    const idle = await open(port);
    await answered(idle);
    clock.now = 600;
    await answered(reused); // quiet since 600 now, `idle` since 500
    clock.now = 5000;
    const newcomer = await open(port);
    await Promise.race([idle.closed, reused.closed]);
    expect(reused.isClosed()).toBe(false);
    expect(idle.isClosed()).toBe(true);
    expect(events).toEqual({ refused: 0, idleClosed: 1, unanswered: [] });
    await answered(newcomer);
  });

  it('does not close a connection quiet by the clock that has received part of its next request', async () => {
    const clock = { now: 0 };
    const { port, events, accepted } = await start(2, clock);
    const receiving = await open(port);
    await answered(receiving);
    clock.now = 500;
    const idle = await open(port);
    await answered(idle);
    // The next request's headers are not complete: node has not seen a request, the connection has bytes.
    receiving.socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n');
    await vi.waitFor(() => expect(accepted[0]!.bytesRead).toBe(receiving.socket.bytesWritten));
    clock.now = 5000; // both quiet past the grace; `receiving` for longer
    const newcomer = await open(port);
    await Promise.race([idle.closed, receiving.closed]);
    expect(receiving.isClosed()).toBe(false);
    expect(events).toEqual({ refused: 0, idleClosed: 1, unanswered: [] });
    // Now `receiving` is the only connection quiet past the grace: still not closed, the next newcomer is refused.
    await answered(newcomer);
    const refused = await open(port);
    await refused.closed;
    expect(events).toEqual({ refused: 1, idleClosed: 1, unanswered: [] });
    receiving.socket.write('\r\nhi');
    await vi.waitFor(() => expect(receiving.received()).toMatch(/ok[^]*ok$/));
  });

  it('over TLS, does not close a connection that has received part of a record since its last answer', async () => {
    const { certPem, keyPem } = await generateSelfSigned();
    const clock = { now: 0 };
    const { port, events, accepted } = await start(1, clock, { key: keyPem, cert: certPem });
    const tcp = connect(port, '127.0.0.1');
    const client = await open(port, tcp);
    await answered(client);
    // One byte of a record header: nothing to decrypt yet, so only the TCP socket's count grows.
    tcp.write(Buffer.from([0x17]));
    await vi.waitFor(() => expect(accepted[0]!.bytesRead).toBe(tcp.bytesWritten));
    clock.now = 5000;
    const newcomer = await open(port);
    await Promise.race([newcomer.closed, client.closed]);
    expect(client.isClosed()).toBe(false);
    expect(events).toEqual({ refused: 1, idleClosed: 0, unanswered: [] });
  });

  it('refuses the newcomer when every connection is busy, waiting for its first request or idle for less than a second', async () => {
    const clock = { now: 0 };
    const { port, events } = await start(3, clock);
    const busy = await open(port);
    busy.socket.write('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
    await vi.waitFor(() => expect(held).toHaveLength(1));
    const silent = await open(port); // no request yet: a client about to send its first one
    const justAnswered = await open(port);
    await answered(justAnswered);
    clock.now = 999; // justAnswered has been quiet for less than the grace; `silent` never sent a request
    const newcomer = await open(port);
    await newcomer.closed;
    expect(newcomer.received()).toBe('');
    expect(events).toEqual({ refused: 1, idleClosed: 0, unanswered: [] });
    for (const client of [busy, silent, justAnswered]) expect(client.isClosed()).toBe(false);
    held[0]!.end('done'); // the busy connection keeps working
    await vi.waitFor(() => expect(busy.received()).toMatch(/done$/));
  });
});

describe('a connection node closes on a client error', () => {
  it('is reported with the requests received and not answered, and the request lines it had not parsed', async () => {
    const { port, events } = await start(10, { now: 0 });
    const client = await open(port);
    client.socket.write(
      'GET / HTTP/1.1\r\nHost: x\r\n\r\n' +
        'GET /hold HTTP/1.1\r\nHost: x\r\n\r\n' +
        'GET /hold HTTP/1.1\r\nHost: x\r\n\r\n' +
        'GET /broken HTTP/1.1\r\nHost x\r\n\r\n' + // a header without a colon: node's parser stops here
        'GET /a HTTP/1.1\r\nHost: x\r\n\r\n' +
        'GET /b HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    await client.closed;
    expect(events.unanswered).toHaveLength(1);
    const [report] = events.unanswered;
    expect(report).toMatchObject({ remoteAddress: '127.0.0.1', code: 'HPE_INVALID_HEADER_TOKEN' });
    // Three requests were received; the first one's answer may not have been written out yet.
    expect(report!.answered + report!.unanswered).toBe(3);
    expect(report!.unanswered).toBeGreaterThanOrEqual(2);
    expect(report!.unread).toBeGreaterThanOrEqual(2);
    expect(report!.unread).toBeLessThanOrEqual(3);
  });
});
