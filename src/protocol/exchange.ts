// One /interpret exchange, independent of the HTTP framework: raw body in, response envelope out.
// The server, the in-process replay and the tests all go through here, so the wire behaviour is
// defined in exactly one place. Every path answers an envelope; nothing throws.
import { interpret, type InterpretInput, type InterpretOutcome } from '../interpreter/dispatch.ts';
import type { Registry } from '../interpreter/registry.ts';
import { diff, encodePatch } from './patch.ts';
import { envelopeProblem } from './schema.ts';
import { apiVersionOf, failure, responseEnvelope, type InterpreterContext, type InterpreterRequest, type InterpreterResponse } from './wire.ts';

export interface Exchange {
  response: InterpreterContext;
  uid: string;
  /** "group/version Kind" of the request when it could be read, for logs and metrics. */
  apiVersion?: string;
  kind?: string;
  operation?: string;
  code: number;
  /** Which interpreter answered ("typescript:CloneSet", "lua:my-ric"). */
  implementation?: string;
  /** An unexpected error behind a 500, for the log (never sent to Karmada). */
  cause?: unknown;
  /** 'timeout' when a Lua script ran out of time (counted separately). */
  reason?: 'timeout';
  request?: InterpreterRequest;
}

export interface RawInterpretRequest {
  body: Buffer | string | undefined;
  contentType: string | undefined;
  /** Set when the body exceeded the limit; `body` then holds only its beginning (to recover the uid). */
  truncatedAt?: number;
}

/**
 * Nesting beyond this is refused before any recursive code (clone, diff, Lua conversion) sees it:
 * JavaScript recursion overflows near 10^4 levels, which Kubernetes still accepts (its JSON decoder
 * stops at 10000), and an overflow inside an interpreter would only read as an internal error.
 * Real objects nest a few dozen levels.
 */
export const MAX_NESTING_DEPTH = 1000;

/** True when a parsed JSON value nests deeper than limit; it never recurses deeper than `limit` itself. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  return deeperThan(value, limit, 0);
}

function deeperThan(value: unknown, limit: number, depth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth >= limit) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (deeperThan(value[i], limit, depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    if (deeperThan((value as Record<string, unknown>)[key], limit, depth + 1)) return true;
  }
  return false;
}

const UID_PREFIX = /"uid"\s*:\s*"((?:[^"\\]|\\.){1,256})"/;

/** Best effort uid from a body that could not be parsed, so even that answer carries it. */
export function sniffUid(body: Buffer | string | undefined): string {
  if (!body) return '';
  const text = typeof body === 'string' ? body.slice(0, 65536) : body.subarray(0, 65536).toString('utf8');
  const match = UID_PREFIX.exec(text);
  if (!match) return '';
  try {
    return JSON.parse(`"${match[1]}"`) as string;
  } catch {
    return '';
  }
}

function isJsonContentType(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function early(uid: string, code: number, message: string): Exchange {
  return { response: failure(uid, code, message), uid, code };
}

/** How a large request's synchronous work is spread out (src/server/interpret-route.ts); by default it all runs at once. */
export interface ExchangeSteps {
  /**
   * Runs one synchronous step on a later event-loop turn, after other large requests' steps (OnePerTurn):
   * parsing, interpreting and diffing an 8 MiB body each take tens of milliseconds, and run back to back
   * they would hold other requests and probes for the sum.
   */
  step?: <T>(work: () => T) => Promise<T>;
  /** The body's nesting was bounded as its bytes arrived (src/server/body-shape.ts): the parsed value needs no walk. */
  nestingChecked?: boolean;
}

const inline = <T>(work: () => T): Promise<T> => Promise.resolve(work());

export async function handleExchange(registry: Registry, raw: RawInterpretRequest, steps: ExchangeSteps = {}): Promise<Exchange> {
  if (raw.truncatedAt !== undefined) {
    return early(sniffUid(raw.body), 413, `request body exceeds the limit of ${raw.truncatedAt} bytes`);
  }
  if (!isJsonContentType(raw.contentType)) {
    return early(sniffUid(raw.body), 400, `Content-Type must be application/json, got ${JSON.stringify(raw.contentType ?? '')}`);
  }
  const text = typeof raw.body === 'string' ? raw.body : (raw.body?.toString('utf8') ?? '');
  if (text.trim() === '') return early('', 400, 'request body is empty; expected a ResourceInterpreterContext');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return early(sniffUid(text), 400, `request body is not valid JSON: ${(error as Error).message}`);
  }
  if (!steps.nestingChecked && nestsDeeperThan(parsed, MAX_NESTING_DEPTH)) {
    return early(sniffUid(text), 400, `request nests deeper than ${MAX_NESTING_DEPTH} levels; Kubernetes objects nest a few dozen`);
  }
  const problem = envelopeProblem(parsed);
  const request = (parsed as { request?: InterpreterRequest } | null)?.request;
  if (problem) {
    // A uid the schema refused (e.g. far too long) is not echoed.
    const uid = typeof request?.uid === 'string' && !problem.startsWith('invalid ResourceInterpreterContext: request.uid') ? request.uid : '';
    return early(uid, 400, problem);
  }
  const step = steps.step ?? inline;
  return step(() => exchangeFor(registry, request!, step));
}

/** What the dispatcher needs from a validated request. */
export function interpretInputOf(request: InterpreterRequest): InterpretInput {
  return {
    apiVersion: apiVersionOf(request.kind),
    kind: request.kind.kind,
    operation: request.operation,
    object: request.object,
    observedObject: request.observedObject,
    replicas: request.replicas,
    aggregatedStatus: request.aggregatedStatus,
  };
}

/** Runs a validated request and builds the response envelope (the patch as a step of its own, see ExchangeSteps). */
export async function exchangeFor(registry: Registry, request: InterpreterRequest, step: ExchangeSteps['step'] = inline): Promise<Exchange> {
  const input = interpretInputOf(request);
  const apiVersion = input.apiVersion;
  const outcome = await interpret(registry, input);
  if (!outcome.ok) {
    const response = failure(request.uid, outcome.code, outcome.message);
    return exchangeOf(request, apiVersion, response, outcome.code, outcome.implementation, outcome.cause, outcome.reason);
  }
  const response = await step(() => successResponse(request, outcome));
  return exchangeOf(request, apiVersion, responseEnvelope(response), 200, outcome.implementation);
}

function exchangeOf(
  request: InterpreterRequest,
  apiVersion: string,
  response: InterpreterContext,
  code: number,
  implementation: string | undefined,
  cause?: unknown,
  reason?: 'timeout',
): Exchange {
  return { uid: request.uid, apiVersion, kind: request.kind.kind, operation: request.operation, request, response, code, implementation, cause, reason };
}

function successResponse(request: InterpreterRequest, outcome: Extract<InterpretOutcome, { ok: true }>): InterpreterResponse {
  const response: InterpreterResponse = { uid: request.uid, successful: true };
  const result = outcome.result;
  switch (result.operation) {
    case 'InterpretReplica':
      response.replicas = result.replicas;
      if (result.requirements !== undefined) response.replicaRequirements = result.requirements;
      break;
    case 'InterpretComponent':
      response.components = result.components;
      break;
    case 'ReviseReplica':
    case 'Retain':
    case 'AggregateStatus': {
      // Patches are relative to request.object exactly as sent; "no change" omits both fields.
      const ops = diff(request.object, result.object);
      if (ops.length > 0) {
        response.patch = encodePatch(ops);
        response.patchType = 'JSONPatch';
      }
      break;
    }
    case 'InterpretStatus':
      response.rawStatus = result.status;
      break;
    case 'InterpretHealth':
      response.healthy = result.healthy;
      break;
    case 'InterpretDependency':
      response.dependencies = result.dependencies;
      break;
  }
  return response;
}
