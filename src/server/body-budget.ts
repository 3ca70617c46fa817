// Bounds the request bytes the server holds at once across calls that send a body (/interpret on its
// fast path, and what fastify reads: /preserve, inject()). Each call reserves its body's size
// (Content-Length, capped at the body limit; the body limit when the length is not declared) from
// when it starts reading until its answer is sent or its connection closes; a call that does not fit
// waits, unread, in arrival order, and the socket's flow control holds its sender. One call is always
// let through, so a single body of any allowed size is served.
//
// Why: a call holds several times its body while it is worked on (the bytes, the text, the parsed
// object, copies), and nothing else bounds how many arrive together. 32 connections sending 7.5 MB
// AggregateStatus bodies took the server to 490 MB, at the 512 MiB limit of manifests/deployment.yaml.
// No library does this for node's request event (rate limiters count requests, not bytes), and it is
// a queue with a counter.
//
// The common case (room now) is take() and give() with no closure over the request. Its first API,
// admit(bytes, start) returning a release, wrapped every call's start in closures, and with it V8 went
// into a mode where it promoted ~1.2 MB per scavenge instead of ~30 KB in every run of the 50-cluster
// Lua pass (peak RSS ~185 MB against ~114 MB). That mode was V8's allocation-site pretenuring, which
// serve now turns off (gc-tuning.ts); the closures only made it likelier (bench/README.md, "Memory").

import type { IncomingMessage } from 'node:http';

/** What a call reserves: its declared length (at most the body limit), else the body limit. */
export function reservedBytes(request: IncomingMessage, bodyLimit: number): number {
  const declared = Number(request.headers['content-length']);
  return Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, bodyLimit) : bodyLimit;
}

interface Waiting {
  bytes: number;
  start: () => void;
}

export class BodyBudget {
  private used = 0;
  private readonly queue: Waiting[] = [];

  readonly limitBytes: number;

  constructor(limitBytes: number) {
    this.limitBytes = limitBytes;
  }

  /** Bytes reserved by calls being read or worked on. */
  get bytesInUse(): number {
    return this.used;
  }

  /** Calls waiting for room. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Reserves `bytes` if nothing waits and they fit (or nothing is in use); false when the call must wait(). */
  take(bytes: number): boolean {
    if (this.queue.length > 0 || !this.fits(bytes)) return false;
    this.used += bytes;
    return true;
  }

  /** Gives back bytes a call reserved (by take(), or by wait() when it started); starts waiting calls that now fit. */
  give(bytes: number): void {
    this.used -= bytes;
    while (this.queue.length > 0 && this.fits(this.queue[0]!.bytes)) {
      const next = this.queue.shift()!;
      this.used += next.bytes;
      next.start();
    }
  }

  /**
   * Queues a call that take() refused: `start` runs, with its bytes reserved, once they fit and the
   * calls before it have started. Returns the cancel for a caller that goes away: true if the call was
   * still waiting (it is dropped and will not start), false if it had started (then give() its bytes).
   */
  wait(bytes: number, start: () => void): () => boolean {
    const call: Waiting = { bytes, start };
    this.queue.push(call);
    return () => {
      const at = this.queue.indexOf(call);
      if (at < 0) return false;
      this.queue.splice(at, 1);
      // The call at the head may have been what held the others back.
      this.give(0);
      return true;
    };
  }

  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.limitBytes;
  }
}
