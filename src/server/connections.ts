// The connections of an HTTP(S) server: how many are open, a bound on the idle ones, and when refused
// ones reach the log (DropReporter).
//
// A connection that has not sent a whole request's headers within `firstRequestTimeoutMs` of being
// ready (TLS handshake done) is closed: node times out headers only once a request has begun, so a
// client that connects and sends nothing would otherwise hold its socket and memory until it leaves.
// Karmada's client sends its request as soon as it connects.
//
// Graceful close without losing a request. Node's server.close() also closes idle keep-alive connections
// at once, and a client that sends its next request on one at that moment gets a reset; Karmada's client
// does not retry POSTs. So the listener is closed first (new connections are refused, which a client sees
// before sending anything), requests in progress are answered (with Connection: close, set while
// draining), and a connection without a request in progress is closed only once it has been quiet for
// IDLE_GRACE_MS, which covers a request on its way over a just-opened connection.
import { Server as NetServer, type Socket } from 'node:net';
import type { Server } from 'node:http';

const IDLE_GRACE_MS = 1000;
const CHECK_MS = 50;

interface Tracked {
  active: number;
  quietSince: number;
  /** Closes the connection unless its first request arrives; cleared when it does. */
  firstRequest: NodeJS.Timeout;
}

export class ConnectionTracker {
  /** Every accepted connection, TLS handshake done or not (a drain waits for those still shaking hands). */
  private readonly accepted = new Set<Socket>();
  /** Connections that can carry requests (the TLS socket over TLS). */
  private readonly sockets = new Map<Socket, Tracked>();
  private readonly server: Server;
  private readonly firstRequestTimeoutMs: number;

  constructor(server: Server, options: { firstRequestTimeoutMs: number }) {
    this.server = server;
    this.firstRequestTimeoutMs = options.firstRequestTimeoutMs;
    const tls = 'setSecureContext' in server;
    server.on('connection', (socket: Socket) => {
      this.accepted.add(socket);
      socket.once('close', () => this.accepted.delete(socket));
      if (!tls) this.track(socket);
    });
    if (tls) server.on('secureConnection', (socket: Socket) => this.track(socket));
    server.on('request', (request, response) => {
      const state = this.sockets.get(request.socket);
      if (!state) return;
      clearTimeout(state.firstRequest);
      state.active++;
      response.once('close', () => {
        state.active--;
        state.quietSince = performance.now();
      });
    });
  }

  get open(): number {
    return this.accepted.size;
  }

  /**
   * Stops accepting connections, then waits until every open one is closed: by the client, by Node after
   * an answer that carried Connection: close, or by us once quiet for the grace. After `timeoutMs` the
   * rest are destroyed. Resolves with the number destroyed that way.
   */
  async drain(timeoutMs: number): Promise<number> {
    NetServer.prototype.close.call(this.server);
    const until = performance.now() + timeoutMs;
    while (this.accepted.size > 0 && performance.now() < until) {
      const now = performance.now();
      for (const [socket, state] of this.sockets) {
        if (state.active === 0 && now - state.quietSince >= IDLE_GRACE_MS) socket.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, CHECK_MS));
    }
    const forced = this.accepted.size;
    for (const socket of this.accepted) socket.destroy();
    return forced;
  }

  private track(socket: Socket): void {
    const firstRequest = setTimeout(() => socket.destroy(), this.firstRequestTimeoutMs).unref();
    const state: Tracked = { active: 0, quietSince: performance.now(), firstRequest };
    this.sockets.set(socket, state);
    socket.once('close', () => {
      clearTimeout(state.firstRequest);
      this.sockets.delete(socket);
    });
  }
}

/**
 * Refused connections for the log: the first is reported at once, later ones together at the end of the
 * window they fall in, so a flood writes a line per window and every drop reaches a line.
 */
export class DropReporter {
  private pending = 0;
  private window: NodeJS.Timeout | undefined;
  private readonly report: (dropped: number) => void;
  private readonly windowMs: number;

  constructor(report: (dropped: number) => void, windowMs = 60_000) {
    this.report = report;
    this.windowMs = windowMs;
  }

  drop(): void {
    this.pending++;
    if (this.window === undefined) this.reportAndWait();
  }

  /** Reports what is pending now (the listener is closing). */
  close(): void {
    clearTimeout(this.window);
    this.window = undefined;
    if (this.pending > 0) this.report(this.pending);
    this.pending = 0;
  }

  private reportAndWait(): void {
    this.report(this.pending);
    this.pending = 0;
    this.window = setTimeout(() => {
      this.window = undefined;
      if (this.pending > 0) this.reportAndWait();
    }, this.windowMs).unref();
  }
}
