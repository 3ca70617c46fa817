// A one-way mailbox in shared memory beside a worker's message port. A thread that expects a message
// soon opens its mailbox and polls it; the other thread, finding it open, writes the message there
// instead of posting it: no copy through the port, no wake-up of the event loop, no 'message' event
// (decision 0008). A closed mailbox, or one too small for the message, leaves it to the port.
//
// States: CLOSED -> OPEN (the receiver opens it), OPEN -> FULL (the sender delivers), FULL -> CLOSED
// (the receiver takes the message), OPEN -> CLOSED (the receiver stops waiting). A sender that uses the
// port instead may first redirect (-> PORT), so that a receiver spinning here stops and none starts until
// it has taken that message (PORT -> CLOSED). Where both sides could move at once the move is a
// compare-and-swap, so each message goes through exactly one of the mailbox and the port.

const CLOSED = 0;
const OPEN = 1;
const FULL = 2;
const PORT = 3;
/** Int32 slots before the message bytes: the state, then the message's length in bytes. */
const STATE = 0;
const LENGTH = 1;
const HEADER_BYTES = 8;

const encoder = new TextEncoder();

export class Mailbox {
  private readonly buffer: SharedArrayBuffer;
  private readonly ints: Int32Array;
  private readonly bytes: Uint8Array;

  /** Shared memory for a mailbox holding messages of up to `capacityBytes` (UTF-8). */
  static allocate(capacityBytes: number): SharedArrayBuffer {
    return new SharedArrayBuffer(HEADER_BYTES + capacityBytes);
  }

  /** Each thread makes its own Mailbox over the same buffer. */
  constructor(buffer: SharedArrayBuffer) {
    this.buffer = buffer;
    this.ints = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    this.bytes = new Uint8Array(buffer, HEADER_BYTES);
  }

  // --- the receiving thread ---

  /** Starts waiting here for the next message; false when it was redirected to the port. */
  open(): boolean {
    return Atomics.compareExchange(this.ints, STATE, CLOSED, OPEN) === CLOSED;
  }

  /** The message, if one was delivered (the mailbox is closed again). */
  take(): string | undefined {
    return Atomics.load(this.ints, STATE) === FULL ? this.read() : undefined;
  }

  /** Stops waiting; returns a message delivered before it could. */
  close(): string | undefined {
    return Atomics.compareExchange(this.ints, STATE, OPEN, CLOSED) === FULL ? this.read() : undefined;
  }

  /**
   * Opens the mailbox and spins on it (blocking this thread) until a message comes, the sender turns to
   * the port instead, or `ms` pass: for a worker between calls, whose event loop has nothing else to do.
   */
  wait(ms: number, now: () => number = () => performance.now()): string | undefined {
    if (!this.open()) return undefined;
    const end = now() + ms;
    while (Atomics.load(this.ints, STATE) === OPEN && now() < end) {
      // spin: a sleeping thread would need the wake-up this mailbox exists to avoid
    }
    return this.close();
  }

  // --- the sending thread ---

  /** Writes the message if the receiver is waiting and it fits; false: send it by the port. */
  deliver(text: string): boolean {
    if (Atomics.load(this.ints, STATE) !== OPEN) return false;
    const { read, written } = encoder.encodeInto(text, this.bytes);
    if (read !== text.length) return false;
    // Plain writes before the atomic one below are visible to the receiver once it sees FULL.
    this.ints[LENGTH] = written;
    return Atomics.compareExchange(this.ints, STATE, OPEN, FULL) === OPEN;
  }

  /**
   * The next message comes by the port: a receiver spinning here stops, and none starts waiting until it
   * has taken that message. (The receiver is then waiting or idle, never holding an undelivered message.)
   */
  redirect(): void {
    Atomics.store(this.ints, STATE, PORT);
  }

  // --- the receiving thread, for a redirected message ---

  /** The message the sender redirected has come by the port: the mailbox can be waited at again. */
  tookFromPort(): void {
    Atomics.compareExchange(this.ints, STATE, PORT, CLOSED);
  }

  private read(): string {
    const text = Buffer.from(this.buffer, HEADER_BYTES, this.ints[LENGTH]).toString('utf8');
    Atomics.store(this.ints, STATE, CLOSED);
    return text;
  }
}

/**
 * How long to wait for a message, given how long the last wait for one like it lasted: the whole `maxMs`
 * when that was at most `maxMs` (messages are coming quickly: a tighter window misses the slow ones, and
 * each miss costs a wake-up); otherwise, or with no last wait yet (Infinity), not at all (waiting would
 * only burn CPU). A worker waits for its next call, the main thread for an answer.
 */
export function pollWindowMs(lastWaitMs: number, maxMs: number): number {
  return lastWaitMs <= maxMs ? maxMs : 0;
}

/** Messages between the pool and its workers are text: a JSON header line, then a payload (JSON text, or empty). */
export function frame(header: object, payload = ''): string {
  return `${JSON.stringify(header)}\n${payload}`;
}

export function unframe(text: string): { header: Record<string, any>; payload: string } {
  const end = text.indexOf('\n'); // JSON.stringify never writes a raw newline
  return { header: JSON.parse(text.slice(0, end)) as Record<string, any>, payload: text.slice(end + 1) };
}
