// Bounds the request bytes the server holds at once across /interpret calls. Each call reserves its
// body's size (Content-Length, capped at the body limit; the body limit when the length is not
// declared) from when it starts reading until its answer is sent or its connection closes; a call that
// does not fit waits, unread, in arrival order, and the socket's flow control holds its sender. One
// call is always let through, so a single body of any allowed size is served.
//
// Why: a call holds several times its body while it is worked on (the bytes, the text, the parsed
// object, copies), and nothing else bounds how many arrive together. 32 connections sending 7.5 MB
// AggregateStatus bodies took the server to 490 MB, at the 512 MiB limit of manifests/deployment.yaml.
// No library does this for node's request event (rate limiters count requests, not bytes), and it is
// a queue with a counter.

interface Waiting {
  bytes: number;
  start: () => void;
}

export class BodyBudget {
  private used = 0;
  private readonly queue: Waiting[] = [];

  constructor(readonly limitBytes: number) {}

  /** Bytes reserved by calls being read or worked on. */
  get bytesInUse(): number {
    return this.used;
  }

  /** Calls waiting for room. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Runs `start` once `bytes` fit (now, when nothing waits before it and they fit or nothing is in use).
   * Returns the release: it gives the bytes back, or drops the call from the queue if it has not
   * started; calling it again does nothing.
   */
  admit(bytes: number, start: () => void): () => void {
    const call: Waiting = { bytes, start };
    let state: 'waiting' | 'started' | 'released' = 'waiting';
    call.start = () => {
      state = 'started';
      start();
    };
    if (this.queue.length === 0 && this.fits(bytes)) this.begin(call);
    else this.queue.push(call);
    return () => {
      if (state === 'started') this.used -= bytes;
      else if (state === 'waiting') this.queue.splice(this.queue.indexOf(call), 1);
      else return;
      state = 'released';
      this.startWaiting();
    };
  }

  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.limitBytes;
  }

  private begin(call: Waiting): void {
    this.used += call.bytes;
    call.start();
  }

  private startWaiting(): void {
    while (this.queue.length > 0 && this.fits(this.queue[0]!.bytes)) this.begin(this.queue.shift()!);
  }
}
