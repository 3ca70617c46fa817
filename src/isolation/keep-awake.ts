// Waking a sleeping thread is slow on virtual machines: a vCPU whose threads all sleep halts, and the
// wake goes through the hypervisor, taking as long as a small Lua call's own work (decision 0007).
// A Lua call crosses threads twice, so each end polls its event loop instead of sleeping while a message
// is about to arrive: the main thread while a call it sent runs, a worker between answering and a next
// call that is expected soon. Polling burns CPU, so every use has a window of a few milliseconds at most,
// and none once the waits it would cover have grown longer than that.

export interface KeepAwakeOptions {
  /** The clock (ms) and how the next poll is scheduled; tests replace both. */
  now?: () => number;
  schedule?: (poll: () => void) => void;
}

/** Keeps this thread's event loop polling (one setImmediate after another) rather than sleeping. */
export class KeepAwake {
  private readonly now: () => number;
  private readonly schedule: (poll: () => void) => void;
  private until = 0;
  private polling = false;

  constructor(options: KeepAwakeOptions = {}) {
    this.now = options.now ?? (() => performance.now());
    this.schedule = options.schedule ?? ((poll) => setImmediate(poll));
  }

  /** Whether the event loop is being kept from sleeping. */
  get awake(): boolean {
    return this.polling;
  }

  /** Keeps the event loop polling for the next `ms` milliseconds (or until `rest`). */
  stayAwake(ms: number): void {
    if (ms <= 0) return;
    this.until = Math.max(this.until, this.now() + ms);
    if (this.polling) return;
    this.polling = true;
    this.schedule(this.poll);
  }

  /** Lets the event loop sleep again (what it waited for came). */
  rest(): void {
    this.until = 0;
  }

  private readonly poll = (): void => {
    if (this.now() < this.until) this.schedule(this.poll);
    else this.polling = false;
  };
}

/**
 * How long to poll for a message, given how long the last wait for one like it lasted: twice that when it
 * was at most `maxMs` (messages are coming quickly), capped at `maxMs`; otherwise not at all (they are
 * not: polling would only burn CPU). A worker waits for its next call, the main thread for an answer.
 */
export function pollWindowMs(lastWaitMs: number, maxMs: number): number {
  return lastWaitMs <= maxMs ? Math.min(maxMs, 2 * lastWaitMs) : 0;
}
