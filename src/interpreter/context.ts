// The request a piece of interpreter code is running for, without threading it through every call:
// Lua `print` output is logged with the uid of the request whose script printed it, and a Lua call
// still waiting for a worker when its request's deadline has passed is not run.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  uid: string;
  log?: { debug(obj: object, msg: string): void };
  /** performance.now() when the caller's answer is due; past it the exchange answers 504 and work for it is wasted. */
  deadline?: number;
  /** The request's body (a ResourceInterpreterContext as JSON text), which a Lua call hands its worker as it is. */
  requestText?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs fn with `context` as the current request context (also across its awaits). */
export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The context of the request whose code is running, if any. */
export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}
