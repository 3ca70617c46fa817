// The request a piece of interpreter code is running for, without threading it through every call:
// Lua `print` output is logged with the uid of the request whose script printed it, and a Lua call
// still queued when its request's deadline has passed is not run.
//
// Only valid during the synchronous part of `runWithRequestContext`'s callback: code that continues
// asynchronously (the Lua runtime waits for its turn) captures it at its synchronous entry. We do not
// use AsyncLocalStorage: on Node 20 it installs promise hooks that cost every request ~15 µs, and the
// only reader is `print`, which is rare.

export interface RequestContext {
  uid: string;
  log?: { debug(obj: object, msg: string): void };
  /** performance.now() when the caller's answer is due; past it the exchange answers 504 and work for it is wasted. */
  deadline?: number;
}

let current: RequestContext | undefined;

/** Runs fn with `context` as the current request context for fn's synchronous part. */
export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  const previous = current;
  current = context;
  try {
    return fn();
  } finally {
    current = previous;
  }
}

/** The context of the request whose code is running synchronously right now, if any. */
export function currentRequestContext(): RequestContext | undefined {
  return current;
}
