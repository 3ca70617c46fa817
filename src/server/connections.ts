// The connections of an HTTP(S) server: how many are open, a bound on the idle ones, the bound on all
// of them (`maxConnections`), and when refused ones reach the log (DropReporter).
//
// At the bound, a newcomer takes the place of the longest-idle keep-alive connection (one that has been
// answered, has had no request in progress for IDLE_GRACE_MS and has received no byte since its last
// answer) instead of being refused: idle connections cost the server nothing to give up and their client
// reconnects when it needs one, while a refusal would lock every new client out until keep-alive timeouts
// (95 s) free slots. Connections with a request in progress, or still waiting for their first request,
// are never closed for a newcomer.
// Node counts a request only once its headers are complete, so a connection whose next request is partly
// received looks idle by requests; the bytes it has read since its last answer say it is not (Karmada's
// client does not retry a POST once written). Over TLS the bytes are those of the TCP socket underneath,
// which grow with any record, even one not yet whole enough to decrypt.
//
// A connection that node closes on a client error (a request it cannot parse; pipelined requests past
// what its parser accepts while answers are queued, HPE_PAUSED) is reported with the requests it leaves
// unanswered: the parsed ones not yet answered and the request lines in the data it had not parsed.
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
// IDLE_GRACE_MS, which covers a request on its way over a just-opened connection, and has received no byte
// since its last answer.
import { Server as NetServer, Socket } from 'node:net';
import type { Server } from 'node:http';

const IDLE_GRACE_MS = 1000;
const CHECK_MS = 50;

interface Tracked {
  /** Requests received whose answer has not closed yet. */
  active: number;
  /** Requests received, answered or not. */
  received: number;
  quietSince: number;
  /** The connection's bytes read (`counter.bytesRead`) when it became quiet. */
  bytesAtQuiet: number;
  /** The socket whose bytesRead grows with every byte the client sends: the TCP socket under a TLS one. */
  counter: Socket;
  /** Closes the connection unless its first request arrives; cleared when it does. */
  firstRequest: NodeJS.Timeout;
}

/** A connection node closed on a client error while requests on it were left unanswered. */
export interface UnansweredReport {
  remoteAddress: string;
  /** Node's error code, e.g. HPE_PAUSED (pipelined requests past what its parser takes while answers queue). */
  code: string;
  answered: number;
  /** Requests received and not answered. */
  unanswered: number;
  /** Request lines in the data received and not parsed (more may have been on their way). */
  unread: number;
}

export interface TrackerOptions {
  firstRequestTimeoutMs: number;
  /** Connections open at once; at the bound a newcomer replaces the longest-idle one, else it is refused. */
  maxConnections?: number;
  onRefused?: () => void;
  /** An idle keep-alive connection was closed to make room for a newcomer. */
  onIdleClosed?: () => void;
  onUnanswered?: (report: UnansweredReport) => void;
  /** The clock of idleness (tests); performance.now() by default. */
  now?: () => number;
}

/** HTTP/1 request lines in the bytes node did not parse (from where it stopped, when it says where). */
function requestLines(raw: Buffer, parsed: number | undefined): number {
  const from = parsed !== undefined && parsed >= 0 && parsed <= raw.length ? parsed : 0;
  return (
    raw
      .subarray(from)
      .toString('latin1')
      .match(/^[A-Z]+ \S+ HTTP\/1\.[01]\r$/gm)?.length ?? 0
  );
}

/** Whether the client has sent anything since the connection's last answer: a request on its way. */
function receivedSinceQuiet(state: Tracked): boolean {
  return state.counter.bytesRead > state.bytesAtQuiet;
}

export class ConnectionTracker {
  /** Every accepted connection, TLS handshake done or not (a drain waits for those still shaking hands). */
  private readonly accepted = new Set<Socket>();
  /** Connections that can carry requests (the TLS socket over TLS). */
  private readonly sockets = new Map<Socket, Tracked>();
  /**
   * Answered connections with no request in progress, in the order they became quiet (re-inserted when
   * they do again), so the longest-idle one is first and a newcomer at the bound need not scan them all.
   */
  private readonly idle = new Map<Socket, Tracked>();
  /** Connections closed to make room whose close has not happened yet: no longer counted against the bound. */
  private closing = 0;
  private readonly server: Server;
  private readonly options: TrackerOptions;
  private readonly now: () => number;

  constructor(server: Server, options: TrackerOptions) {
    this.server = server;
    this.options = options;
    this.now = options.now ?? (() => performance.now());
    const tls = 'setSecureContext' in server;
    server.on('connection', (socket: Socket) => {
      // Node's own server.maxConnections refuses before any listener runs, so the bound is kept here,
      // where a newcomer can take an idle connection's place.
      if (options.maxConnections !== undefined && this.accepted.size - this.closing >= options.maxConnections && !this.closeLongestIdle()) {
        socket.destroy();
        options.onRefused?.();
        return;
      }
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
      state.received++;
      this.idle.delete(request.socket);
      response.once('close', () => {
        state.active--;
        if (state.active > 0 || !this.sockets.has(request.socket)) return;
        state.quietSince = this.now();
        state.bytesAtQuiet = state.counter.bytesRead;
        this.idle.set(request.socket, state);
      });
    });
    // Runs after fastify's own clientError handler (which answers 400/408 where it can and destroys the
    // socket); the counts are read before the answers' close events settle them.
    server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
      const remoteAddress = socket.remoteAddress ?? 'unknown';
      // Node closes the connection itself only when nobody listens for clientError; fastify listens
      // (answers 400/408 and destroys it), a bare server would otherwise keep it open.
      if (server.listenerCount('clientError') === 1) socket.destroy();
      const state = this.sockets.get(socket);
      if (!state || !options.onUnanswered || error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
      const unread = error.rawPacket ? requestLines(error.rawPacket, (error as { bytesParsed?: number }).bytesParsed) : 0;
      if (state.active + unread === 0) return;
      options.onUnanswered({
        remoteAddress,
        code: error.code ?? 'unknown',
        answered: state.received - state.active,
        unanswered: state.active,
        unread,
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
      const now = this.now();
      for (const [socket, state] of this.sockets) {
        if (state.active === 0 && now - state.quietSince >= IDLE_GRACE_MS && !receivedSinceQuiet(state)) socket.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, CHECK_MS));
    }
    const forced = this.accepted.size;
    for (const socket of this.accepted) socket.destroy();
    return forced;
  }

  /**
   * Closes the keep-alive connection idle the longest (at least IDLE_GRACE_MS, no byte received since its
   * last answer), if there is one. Connections found receiving leave the idle order until their next answer.
   */
  private closeLongestIdle(): boolean {
    const now = this.now();
    for (const [socket, state] of this.idle) {
      // Quiet order: once one has been quiet for less than the grace, so have all after it.
      if (now - state.quietSince < IDLE_GRACE_MS) return false;
      this.idle.delete(socket);
      if (receivedSinceQuiet(state)) continue;
      this.sockets.delete(socket);
      this.closing++;
      socket.once('close', () => this.closing--);
      socket.destroy();
      this.options.onIdleClosed?.();
      return true;
    }
    return false;
  }

  private track(socket: Socket): void {
    const firstRequest = setTimeout(() => socket.destroy(), this.options.firstRequestTimeoutMs).unref();
    const counter = (socket as Socket & { _parent?: unknown })._parent;
    const state: Tracked = {
      active: 0,
      received: 0,
      quietSince: this.now(),
      bytesAtQuiet: 0,
      // A TLSSocket's own bytesRead counts decrypted bytes only (none for a record still arriving); node
      // keeps the TCP socket under it as `_parent`.
      counter: counter instanceof Socket ? counter : socket,
      firstRequest,
    };
    this.sockets.set(socket, state);
    socket.once('close', () => {
      clearTimeout(state.firstRequest);
      this.sockets.delete(socket);
      this.idle.delete(socket);
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
