// ConnectionTracker (src/server/connections.ts): a connection that sends no request is closed after the
// first-request timeout; one that sent a request is left to node's keep-alive; `open` counts connections.
// DropReporter: when refused connections reach the log.
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionTracker, DropReporter } from '../../src/server/connections.ts';

const FIRST_REQUEST_MS = 100;
let server: Server | undefined;

async function start(): Promise<{ port: number; tracker: ConnectionTracker }> {
  server = createServer({ keepAliveTimeout: 60_000 }, (_request, response) => response.end('ok'));
  const tracker = new ConnectionTracker(server, { firstRequestTimeoutMs: FIRST_REQUEST_MS });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, tracker };
}

function open(port: number): Promise<{ socket: Socket; closed: Promise<void>; received: () => string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('connect', () => resolve({ socket, closed, received: () => text }));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(async () => {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe('connections without a request', () => {
  it('are closed by the server once the first-request timeout passes', async () => {
    const { port, tracker } = await start();
    const silent = await open(port);
    const halfHeaders = await open(port);
    halfHeaders.socket.write('GET / HTTP/1.1\r\nHost: x\r\n'); // headers never finished
    await sleep(20);
    expect(tracker.open).toBe(2);
    await Promise.all([silent.closed, halfHeaders.closed]);
    expect(silent.received()).toBe('');
    await vi.waitFor(() => expect(tracker.open).toBe(0)); // the server sees its side close a moment later
  });

  it('stay open, keep-alive, once a request came', async () => {
    const { port, tracker } = await start();
    const client = await open(port);
    client.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    while (!client.received().endsWith('ok')) await sleep(10);
    let closed = false;
    void client.closed.then(() => (closed = true));
    await sleep(FIRST_REQUEST_MS * 4);
    expect(closed).toBe(false);
    expect(tracker.open).toBe(1);
    client.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    while (client.received().split('ok').length < 3) await sleep(10);
    client.socket.destroy();
  });
});

describe('DropReporter (the log line of refused connections)', () => {
  afterEach(() => vi.useRealTimers());

  it('reports the first drop at once, the rest at the end of each minute that had some, and what is left on close', () => {
    vi.useFakeTimers();
    const lines: number[] = [];
    const drops = new DropReporter((dropped) => lines.push(dropped), 60_000);
    drops.drop();
    expect(lines).toEqual([1]);
    for (let i = 0; i < 5; i++) drops.drop();
    vi.advanceTimersByTime(59_999);
    expect(lines).toEqual([1]);
    vi.advanceTimersByTime(1);
    expect(lines).toEqual([1, 5]); // a flood shorter than the window still reaches a line
    drops.drop();
    drops.drop();
    vi.advanceTimersByTime(60_000);
    expect(lines).toEqual([1, 5, 2]);
    vi.advanceTimersByTime(60_000); // a quiet window ends the series: the next drop is reported at once
    drops.drop();
    expect(lines).toEqual([1, 5, 2, 1]);
    drops.drop();
    drops.close();
    expect(lines).toEqual([1, 5, 2, 1, 1]);
    vi.advanceTimersByTime(120_000);
    expect(lines).toEqual([1, 5, 2, 1, 1]);
  });
});
