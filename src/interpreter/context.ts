// The request a piece of interpreter code is running for, without threading it through every call:
// Lua `print` output is logged with the uid of the request whose script printed it.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  uid: string;
  log?: { debug(obj: object, msg: string): void };
}

export const requestContext = new AsyncLocalStorage<RequestContext>();
