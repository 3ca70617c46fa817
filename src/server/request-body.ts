// Reading request bodies within bounds a caller cannot get around:
// - one body at most `bodyLimit` bytes: beyond it only the first 64 KiB are kept (to recover the uid for
//   the 413 answer) and the rest is read and dropped, so the connection stays usable;
// - the bytes of all bodies being read or answered are counted against one budget as they arrive. A body
//   that would take the count past the budget pauses (its sender is held by TCP flow control) until
//   answers give bytes back; the oldest body still arriving is never paused, so reading always progresses;
// - a body that stops arriving for `idleMs` fails with BodyStalledError, which gives its bytes back;
// - a body past the bounds on what it holds (body-shape.ts: values, keys in one object, nesting), counted
//   as its bytes arrive, is refused like one past the size limit: its beginning is kept, the rest dropped.
// No library does byte budgets across requests (rate limiters count requests), and it is a counter and a
// list of paused readers.
import type { IncomingMessage } from 'node:http';
import { BodyShape } from './body-shape.ts';
import { LARGE_BODY_BYTES, type OnePerTurn } from './one-per-turn.ts';

export const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;
/** Four bodies of the largest default size at once; thousands of usual ones (2-40 KiB). */
export const DEFAULT_INFLIGHT_BODY_LIMIT = 32 * 1024 * 1024;
export const DEFAULT_BODY_IDLE_MS = 5000;
const KEEP_WHEN_TRUNCATED = 65536;

export class BodyStalledError extends Error {
  /** The beginning of what had arrived (to recover the uid for the answer). */
  readonly received: string;
  constructor(idleMs: number, received: string) {
    super(`the request body stopped arriving for ${idleMs} ms`);
    this.name = 'BodyStalledError';
    this.received = received;
  }
}

export interface ReadBody {
  /** The body as UTF-8 text; when truncated, only its beginning (at most 64 KiB). */
  body: string;
  /** Set when the body exceeded the limit. */
  truncatedAt?: number;
  /** Set when the body holds more than the bounds allow (body-shape.ts): which bound, as a message. */
  refused?: string;
  /** The body's shape (nesting included) was counted as it arrived: bodies of SHAPE_FROM_BYTES and more. */
  shapeChecked?: boolean;
}

/**
 * Bodies shorter than this are not counted (counting costs about as much as parsing): they cannot reach
 * the bounds on values (at least 2 bytes each: 32,768) or keys in one object (at least 6 bytes each:
 * 10,922). Their nesting is checked on the parsed value instead (src/protocol/exchange.ts).
 */
export const SHAPE_FROM_BYTES = 64 * 1024;

/**
 * The bytes one request holds in the budget, from its first byte until its answer is sent and the work on
 * it has stopped: work still queued after an answer (a timeout, a closed connection) holds the body's text,
 * so its bytes stay counted until then, and further bodies wait.
 */
export class Reservation {
  bytes = 0;
  private released = false;
  private answered = false;
  private readonly budget: BodyBudget;
  private work: Promise<unknown> | undefined;

  constructor(budget: BodyBudget) {
    this.budget = budget;
  }

  /** Keeps the bytes counted until `work` settles, even once the answer is sent. */
  holdUntil(work: Promise<unknown>): void {
    this.work = work;
    void work.then(
      () => this.releaseIfAnswered(),
      () => this.releaseIfAnswered(),
    );
  }

  private releaseIfAnswered(): void {
    this.work = undefined;
    if (this.answered) this.release();
  }

  /** The answer was sent or the connection closed: released now, or once the work held on settles. */
  answeredOrClosed(): void {
    this.answered = true;
    if (this.work === undefined) this.release();
  }

  add(bytes: number): void {
    if (this.released) return;
    this.bytes += bytes;
    this.budget.used += bytes;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.giveBack(this.bytes);
  }
}

export class BodyBudget {
  used = 0;
  readonly limitBytes: number;
  /** Bodies still arriving, oldest first; paused ones are resumed in that order. */
  private readonly arriving: BodyReader[] = [];
  /** Looks for bodies that stopped arriving, while any is arriving (one timer for all of them). */
  private idleSweep: NodeJS.Timeout | undefined;

  /** Where a large body is decoded: one per event-loop turn with the other steps of large requests. */
  readonly largeSteps: OnePerTurn;

  constructor(limitBytes: number, largeSteps: OnePerTurn) {
    this.limitBytes = limitBytes;
    this.largeSteps = largeSteps;
  }

  /** Bodies paused until bytes are given back. */
  get waiting(): number {
    return this.arriving.filter((r) => r.paused).length;
  }

  giveBack(bytes: number): void {
    this.used -= bytes;
    for (const reader of this.arriving) {
      if (this.used >= this.limitBytes) break;
      if (reader.paused) reader.resume();
    }
  }

  /** Reads one body; `reservation` keeps its bytes counted until the caller releases it. */
  read(stream: IncomingMessage, bodyLimit: number, idleMs: number, reservation: Reservation): Promise<ReadBody> {
    return new Promise((resolve, reject) => {
      const reader = new BodyReader(this, stream, bodyLimit, idleMs, reservation, resolve, reject);
      this.arriving.push(reader);
      this.idleSweep ??= setInterval(() => this.sweep(), Math.min(1000, Math.max(10, idleMs / 4))).unref();
    });
  }

  /** Whether this reader must pause: past the budget, unless it is the oldest body still arriving. */
  mustPause(reader: BodyReader): boolean {
    return this.used > this.limitBytes && this.arriving[0] !== reader;
  }

  finished(reader: BodyReader): void {
    const at = this.arriving.indexOf(reader);
    if (at >= 0) this.arriving.splice(at, 1);
    if (this.arriving.length === 0) {
      clearInterval(this.idleSweep);
      this.idleSweep = undefined;
    }
    // The next oldest body may have been paused behind this one.
    this.giveBack(0);
  }

  private sweep(): void {
    const now = performance.now();
    for (const reader of [...this.arriving]) reader.checkIdle(now);
  }
}

/** One body being read: its chunks (decoded once it is whole), its bytes in the budget, its last activity. */
class BodyReader {
  paused = false;
  private chunks: Buffer[] = [];
  private size = 0;
  /** The body's beginning once it is refused (too large, or past a shape bound); later bytes are dropped. */
  private kept: string | undefined;
  private refused: string | undefined;
  /** Counts the body once it reaches SHAPE_FROM_BYTES (from its first byte on). */
  private shape: BodyShape | undefined;
  /** performance.now() of the last chunk (or of being resumed: waiting for room is not the sender's stall). */
  private lastActivity = performance.now();
  private readonly budget: BodyBudget;
  private readonly stream: IncomingMessage;
  private readonly bodyLimit: number;
  private readonly idleMs: number;
  private readonly reservation: Reservation;
  private readonly resolve: (body: ReadBody) => void;
  private readonly reject: (error: Error) => void;

  constructor(
    budget: BodyBudget,
    stream: IncomingMessage,
    bodyLimit: number,
    idleMs: number,
    reservation: Reservation,
    resolve: (body: ReadBody) => void,
    reject: (error: Error) => void,
  ) {
    this.budget = budget;
    this.stream = stream;
    this.bodyLimit = bodyLimit;
    this.idleMs = idleMs;
    this.reservation = reservation;
    this.resolve = resolve;
    this.reject = reject;
    stream.on('data', this.onData);
    stream.once('end', this.onEnd);
    stream.once('error', this.onError);
  }

  resume(): void {
    this.paused = false;
    this.lastActivity = performance.now();
    this.stream.resume();
  }

  checkIdle(now: number): void {
    if (this.paused || now - this.lastActivity < this.idleMs) return;
    this.finish();
    const received = this.kept ?? Buffer.concat(this.chunks).toString('utf8', 0, KEEP_WHEN_TRUNCATED);
    this.chunks = [];
    this.reject(new BodyStalledError(this.idleMs, received));
  }

  private readonly onData = (chunk: Buffer): void => {
    this.lastActivity = performance.now();
    this.size += chunk.length;
    if (this.kept !== undefined) return; // refused: read and dropped
    if (this.size <= this.bodyLimit && this.size >= SHAPE_FROM_BYTES) {
      if (!this.shape) {
        this.shape = new BodyShape();
        for (const earlier of this.chunks) this.shape.feed(earlier);
      }
      this.refused = this.shape.feed(chunk);
    }
    if (this.size > this.bodyLimit || this.refused !== undefined) {
      // Only the beginning is copied: a refused body may already hold megabytes.
      this.kept = Buffer.concat([...this.chunks, chunk], Math.min(this.size, KEEP_WHEN_TRUNCATED)).toString('utf8');
      this.chunks = [];
      return;
    }
    this.chunks.push(chunk);
    this.reservation.add(chunk.length);
    if (this.budget.mustPause(this)) {
      this.paused = true;
      this.stream.pause();
    }
  };

  private readonly onEnd = (): void => {
    this.finish();
    if (this.refused !== undefined) return this.resolve({ body: this.kept!, refused: this.refused });
    if (this.kept !== undefined) return this.resolve({ body: this.kept, truncatedAt: this.bodyLimit });
    const chunks = this.chunks;
    this.chunks = [];
    // One chunk (most requests: a small body in one TLS record) is decoded as it is.
    const shapeChecked = this.shape !== undefined;
    const decode = () => ({ body: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.size)).toString('utf8'), shapeChecked });
    if (this.size > LARGE_BODY_BYTES) this.budget.largeSteps.run(decode).then(this.resolve, this.reject);
    else this.resolve(decode());
  };

  private readonly onError = (error: Error): void => {
    this.finish();
    this.reject(error);
  };

  private finish(): void {
    this.stream.off('data', this.onData);
    this.stream.off('end', this.onEnd);
    this.stream.off('error', this.onError);
    this.budget.finished(this);
  }
}
