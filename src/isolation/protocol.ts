// Messages between the main thread and the untrusted-work workers: the headers of the pool's tasks and
// answers (src/isolation/worker-pool.ts); payloads are JSON text (a call's arguments, the state to
// evaluate, a result). Each message is one string: the header's JSON on the first line, then the payload.

import type { LuaOperation } from '../lua/operations.ts';

/** What every worker starts with. */
export interface UntrustedWorkerData {
  /** How much one Lua call may grow the worker's heap (plus external memory). */
  memoryLimitBytes: number;
}

export type WorkerRequest =
  | {
      id: number;
      type: 'lua';
      operation: LuaOperation;
      /** The payload is a Karmada request's JSON text (its fields are the arguments), else the arguments' JSON array. */
      fromRequest: boolean;
      /** Scripts travel once per worker: `script` is set the first time this worker is sent `scriptId`. */
      scriptId: number;
      script?: string;
      /** Forget every script sent before this one (the pool bounds what a worker keeps). */
      onceReset?: boolean;
      timeoutMs: number;
    }
  | { id: number; type: 'preserve'; rules: unknown[] };

export interface WorkerError {
  /** The error's message; empty for a Lua script error, whose text is luaMessage. */
  message: string;
  /** Set for Lua script errors (src/lua/errors.ts LuaScriptError). */
  luaMessage?: string;
  functionName?: string;
  line?: number;
  timeout?: boolean;
}

/**
 * An answer's header; a successful one's payload is the result, or with `patch` (OBJECT_OPERATIONS) the
 * JSON Patch from the call's first argument to the object the script returned (src/protocol/patch.ts).
 */
export type WorkerReply = { id: number; prints: string[]; compiled: boolean; idleBytes: number } & (
  { ok: true; patch?: true } | { ok: false; error: WorkerError }
);

/** The operations whose result is the object they were given, changed: answered as a patch. */
export const OBJECT_OPERATIONS: ReadonlySet<LuaOperation> = new Set<LuaOperation>(['ReviseReplica', 'Retain', 'AggregateStatus']);

/**
 * Largest result a worker sends back as JSON text (a reflected status, components, replicas): the main
 * thread parses it at once, and Karmada stores a status in objects the API server refuses past 3 MiB.
 * Object results travel as patches (MAX_PATCH_BYTES, the same 4 MiB).
 */
export const MAX_RESULT_BYTES = 4 * 1024 * 1024;
/** `print` output kept per call (logged at debug level with the request's uid). */
export const MAX_PRINT_LINES = 100;
export const MAX_PRINT_LINE_CHARS = 1024;

/** A message between the pool and a worker: a JSON header line, then a payload (JSON text, or empty). */
export function frame(header: object, payload = ''): string {
  return `${JSON.stringify(header)}\n${payload}`;
}

export function unframe(text: string): { header: Record<string, any>; payload: string } {
  const end = text.indexOf('\n'); // JSON.stringify never writes a raw newline
  return { header: JSON.parse(text.slice(0, end)) as Record<string, any>, payload: text.slice(end + 1) };
}
