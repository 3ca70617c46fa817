// ConnectionTracker's bound (src/server/connections.ts): with the maximum open, a newcomer takes the place
// of the longest-idle keep-alive connection; connections with a request in progress or still waiting for
// their first request are never closed for it, and without an idle one the newcomer is refused. A
// connection node closes on a client error is reported with the requests it leaves unanswered.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionTracker, type UnansweredReport } from '../../src/server/connections.ts';

let server: Server | undefined;
const held: ServerResponse[] = [];

interface Events {
  refused: number;
  idleClosed: number;
  unanswered: UnansweredReport[];
}

/** A server whose /hold requests are answered only when the test ends; the idle clock is `clock.now`. */
async function start(max: number, clock: { now: number }): Promise<{ port: number; tracker: ConnectionTracker; events: Events }> {
  server = createServer({ keepAliveTimeout: 60_000 }, (request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/hold') held.push(response);
    else response.end('ok');
  });
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
  return { port: (server.address() as { port: number }).port, tracker, events };
}

interface Client {
  socket: Socket;
  closed: Promise<void>;
  isClosed: () => boolean;
  received: () => string;
}

function open(port: number): Promise<Client> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
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
    socket.once('connect', () => resolve({ socket, closed: whenClosed, isClosed: () => closed, received: () => text }));
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
