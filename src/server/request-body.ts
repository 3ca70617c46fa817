// Reading request bodies within bounds a caller cannot get around:
// - one body at most `bodyLimit` bytes: beyond it only the first 64 KiB are kept (to recover the uid for
//   the 413 answer) and the rest is read and dropped, so the connection stays usable;
// - the bytes of all bodies being read or answered are counted against one budget as they arrive. A body
//   that would take the count past the budget pauses (its sender is held by TCP flow control) until
//   answers give bytes back; the oldest body still arriving is never paused, so reading always progresses;
// - a body that stops arriving for `idleMs` fails with BodyStalledError, which gives its bytes back.
// No library does byte budgets across requests (rate limiters count requests), and it is a counter and a
// list of paused readers.
import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';

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
}

/** The bytes one request holds in the budget, from its first byte until its answer is sent. */
export class Reservation {
  bytes = 0;
  private released = false;
  private readonly budget: BodyBudget;

  constructor(budget: BodyBudget) {
    this.budget = budget;
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
  private readonly arriving: Array<{ resume: () => void; paused: boolean }> = [];

  constructor(limitBytes: number) {
    this.limitBytes = limitBytes;
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
      // Decoded chunk by chunk, so a large body's decoding is spread over its arrival instead of one block at the end.
      const decoder = new StringDecoder('utf8');
      let pieces: string[] = [];
      let size = 0;
      let kept: string | undefined;
      let idleTimer: NodeJS.Timeout | undefined;
      const reader = {
        paused: false,
        resume: () => {
          reader.paused = false;
          stream.resume();
          armIdle();
        },
      };
      this.arriving.push(reader);
      const done = () => {
        clearTimeout(idleTimer);
        const at = this.arriving.indexOf(reader);
        if (at >= 0) this.arriving.splice(at, 1);
        stream.off('data', onData);
        // The next oldest body may have been paused behind this one.
        this.giveBack(0);
      };
      const armIdle = () => {
        clearTimeout(idleTimer);
        idleTimer = setTimeout(() => {
          done();
          const received = kept ?? pieces.join('').slice(0, KEEP_WHEN_TRUNCATED);
          pieces = [];
          reject(new BodyStalledError(idleMs, received));
        }, idleMs);
      };
      const onData = (chunk: Buffer) => {
        armIdle();
        size += chunk.length;
        if (kept !== undefined) return; // over the limit: read and dropped
        if (size > bodyLimit) {
          kept = (pieces.join('') + decoder.write(chunk)).slice(0, KEEP_WHEN_TRUNCATED);
          pieces = [];
          return;
        }
        pieces.push(decoder.write(chunk));
        reservation.add(chunk.length);
        if (this.used > this.limitBytes && this.arriving[0] !== reader) {
          reader.paused = true;
          clearTimeout(idleTimer); // waiting for room is not the sender's stall
          stream.pause();
        }
      };
      stream.on('data', onData);
      stream.once('end', () => {
        done();
        if (kept !== undefined) return resolve({ body: kept, truncatedAt: bodyLimit });
        pieces.push(decoder.end());
        const body = pieces.length === 2 ? pieces[0]! + pieces[1]! : pieces.join('');
        pieces = [];
        resolve({ body });
      });
      stream.once('error', (error) => {
        done();
        reject(error);
      });
      armIdle();
    });
  }
}
