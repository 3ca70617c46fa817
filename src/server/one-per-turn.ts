import { AsyncResource } from 'node:async_hooks';

/** Bodies this large (bytes, or characters once decoded) take tens of milliseconds of synchronous work per step. */
export const LARGE_BODY_BYTES = 1024 * 1024;

/**
 * Runs synchronous steps of large requests one per event-loop turn, so several arriving together never hold
 * the loop back to back: other requests and probes are served between any two steps.
 */
export class OnePerTurn {
  private readonly waiting: Array<() => void> = [];
  private running = false;

  /** Runs `step` on a later turn, after the steps queued before it; resolves with what it returns. */
  run<T>(step: () => T): Promise<T> {
    // The step runs in its caller's async context (the request's, see interpreter/context.ts), not in that of
    // whichever step happened to schedule the turn.
    const bound = AsyncResource.bind(step);
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(() => {
        try {
          resolve(bound());
        } catch (error) {
          reject(error as Error);
        } finally {
          this.running = false;
          if (this.waiting.length > 0) this.next();
        }
      });
      if (!this.running) this.next();
    });
  }

  private next(): void {
    this.running = true;
    setImmediate(this.waiting.shift()!);
  }
}
