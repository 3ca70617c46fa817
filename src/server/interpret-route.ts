// POST /interpret and /interpret/<anything>: the one handler Karmada's calls reach. It owns the deadline
// (Karmada's ?timeout=, counted from the request's headers), the log line, metrics and recording, and
// always answers HTTP 200 with an envelope. The wire rules (content type, decoding, validation, patches)
// are src/protocol/exchange.ts, which calls src/interpreter/dispatch.ts, which calls the kind's module.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { runWithRequestContext, type RequestContext } from '../interpreter/context.ts';
import type { Registry } from '../interpreter/registry.ts';
import { handleExchange, sniffUid, type Exchange } from '../protocol/exchange.ts';
import { clip, failure } from '../protocol/wire.ts';
import { isReplayedRequest } from '../record/format.ts';
import type { RecordMeta } from '../record/recorder.ts';
import { answerWithinMs } from './deadline.ts';
import type { Metrics } from './metrics.ts';
import { LARGE_BODY_BYTES, type OnePerTurn } from './one-per-turn.ts';
import { BodyStalledError, type ReadBody } from './request-body.ts';

export interface InterpretRouteOptions {
  registry: Registry;
  metrics: Metrics;
  /** Upper bound for one answer when Karmada's ?timeout= allows more. */
  maxAnswerMs: number;
  onExchange?: (exchange: Exchange, durationMs: number, meta: RecordMeta) => void;
  /** Where the synchronous steps of large requests (interpreting, recording) take their turns. */
  largeSteps: OnePerTurn;
}
/** Longest kind, operation, uid, namespace or name written to a log line. */
const MAX_LOGGED_FIELD = 256;

/**
 * The request's namespace and name for the log line (Karmada's uid is random, so these say which object
 * was interpreted): request.namespace and request.name, else the object's metadata.
 */
function objectRef(exchange: Exchange): { namespace?: string; name?: string } {
  const request = exchange.request;
  if (!request) return {};
  const metadata = (request.object as { metadata?: { namespace?: unknown; name?: unknown } } | undefined)?.metadata;
  const pick = (own: unknown, fromObject: unknown): string | undefined => {
    const value = typeof own === 'string' && own !== '' ? own : fromObject;
    return typeof value === 'string' && value !== '' ? clip(value, MAX_LOGGED_FIELD) : undefined;
  };
  return { namespace: pick(request.namespace, metadata?.namespace), name: pick(request.name, metadata?.name) };
}

/**
 * The request context of one call; its uid is read from the body only when a script prints. A class, not
 * an object literal with a getter: made per request, such a literal kept its getter's closure, and with it
 * the handler's variables (body, exchange), alive through young-generation collections until the next
 * full one, which made every scavenge slow (bench/README.md, "Memory").
 */
class CallContext implements RequestContext {
  private readonly body: string | undefined;
  readonly log: Logger;
  readonly deadline: number;

  constructor(body: string | undefined, log: Logger, deadline: number) {
    this.body = body;
    this.log = log;
    this.deadline = deadline;
  }

  get uid(): string {
    return sniffUid(this.body);
  }

  get requestText(): string | undefined {
    return this.body;
  }
}

/** Thrown by a queued step of a request nobody waits for any more; its answer was already given. */
class AbandonedRequest extends Error {}

export function registerInterpretRoute(app: FastifyInstance, options: InterpretRouteOptions): void {
  const { registry, metrics, maxAnswerMs, onExchange, largeSteps } = options;
  // Exchanges are handed to the recorder a turn after their answer; closing waits for them, so the flush
  // after app.close() (start.ts) sees every exchange answered before it.
  const recordsOnTheirWay = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled([...recordsOnTheirWay]);
  });

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const read = request.body as ReadBody | undefined;
    const raw = { body: read?.body, contentType: request.headers['content-type'], truncatedAt: read?.truncatedAt };
    const timeout = (request.query as Record<string, string | undefined>).timeout;
    const limitMs = answerWithinMs(timeout, maxAnswerMs) - (performance.now() - request.arrivedAt);
    const log = request.log as unknown as Logger;

    const context = new CallContext(raw.body, log, performance.now() + limitMs);
    metrics.inFlight.inc();
    const large = (raw.body?.length ?? 0) > LARGE_BODY_BYTES;
    // A body counted as it arrived (request-body.ts) needs no nesting walk once parsed; a large one is
    // parsed, interpreted and diffed in separate turns.
    // Once the request is answered (in time or not) or its connection closed, its queued steps are skipped:
    // they would only hold its body and the event loop for nobody.
    let abandoned = false;
    reply.raw.once('close', () => (abandoned = true));
    const inTurn = <T>(work: () => T) =>
      largeSteps.run(() => {
        if (abandoned) throw new AbandonedRequest();
        return work();
      });
    const steps = { nestingChecked: read?.shapeChecked === true, ...(large ? { step: inTurn } : {}) };
    const handle = () => runWithRequestContext(context, () => handleExchange(registry, raw, steps));
    const work = read?.refused
      ? Promise.resolve(refusedAnswer(raw.body, read.refused))
      : (large ? inTurn(handle) : handle()).catch((error: unknown) => internalError(raw.body, error));
    request.reservation?.holdUntil(work);
    const exchange = await withDeadline(work, limitMs, () => timeoutAnswer(raw.body, limitMs));
    abandoned = true;
    metrics.inFlight.dec();

    const durationMs = performance.now() - request.arrivedAt;
    observe(exchange, durationMs, log);
    if (onExchange) {
      const meta = { replayed: isReplayedRequest(request.headers), requestBytes: raw.body?.length, requestText: raw.body };
      const record = () => onExchange(exchange, durationMs, meta);
      const handedOver = large ? largeSteps.run(record) : new Promise<void>((resolve) => setImmediate(() => resolve(record())));
      recordsOnTheirWay.add(handedOver);
      void handedOver.catch(() => undefined).finally(() => recordsOnTheirWay.delete(handedOver));
    }
    return sendEnvelope(reply, exchange.response);
  };
  app.post('/interpret', handler);
  app.post('/interpret/*', handler);

  // Failures before the handler (a body that stalls, a broken chunked encoding) still answer an envelope.
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (!request.url.startsWith('/interpret')) {
      request.log.error({ err: error }, 'request failed');
      return reply.code(error.statusCode ?? 500).send({ error: error.message });
    }
    const uid = sniffUid(error instanceof BodyStalledError ? error.received : (request.body as ReadBody | undefined)?.body);
    request.log.warn({ err: error, uid }, 'interpreter request failed before dispatch');
    if (error instanceof BodyStalledError) {
      // The rest of the body may still come: this connection cannot carry another request.
      reply.header('connection', 'close');
      return sendEnvelope(reply, failure(uid, 408, error.message));
    }
    return sendEnvelope(reply, failure(uid, 400, `bad request: ${error.message}`));
  });

  function observe(exchange: Exchange, durationMs: number, log: Logger): void {
    const gvk = exchange.apiVersion && exchange.kind ? `${exchange.apiVersion}/${exchange.kind}` : undefined;
    const labels = metrics.labels(gvk, exchange.operation, () =>
      Boolean(exchange.apiVersion && exchange.kind && registry.serves(exchange.apiVersion, exchange.kind)),
    );
    metrics.observeRequest(labels, sourceOf(exchange.implementation), String(exchange.code), durationMs / 1000);
    if (exchange.reason === 'timeout') metrics.luaTimeouts.inc(labels);
    const line = {
      uid: clip(exchange.uid, MAX_LOGGED_FIELD),
      apiVersion: exchange.apiVersion && clip(exchange.apiVersion, MAX_LOGGED_FIELD),
      kind: exchange.kind && clip(exchange.kind, MAX_LOGGED_FIELD),
      operation: exchange.operation && clip(exchange.operation, MAX_LOGGED_FIELD),
      ...objectRef(exchange),
      code: exchange.code,
      durationMs: Math.round(durationMs * 1000) / 1000,
      implementation: exchange.implementation,
    };
    if (exchange.cause) log.error({ ...line, err: exchange.cause }, 'interpreter failed');
    else if (exchange.code !== 200) log.warn({ ...line, message: exchange.response.response?.status?.message }, 'interpreter request refused');
    else log.info(line, 'interpreted');
    if (log.isLevelEnabled('debug')) log.debug({ uid: line.uid, request: exchange.request, response: exchange.response }, 'exchange bodies');
  }
}

/**
 * HTTP 200 with the envelope as JSON text. Sent as a string, node writes the head and the body in one TLS
 * record and one system call (a Buffer body is a second one).
 */
function sendEnvelope(reply: FastifyReply, envelope: unknown): FastifyReply {
  return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(envelope));
}

/** The work's result, or onTimeout()'s when the work takes longer than ms. */
function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout()), Math.max(0, ms));
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

function timeoutAnswer(body: string | undefined, limitMs: number): Exchange {
  const uid = sniffUid(body);
  return { uid, code: 504, response: failure(uid, 504, `interpreter did not answer within ${Math.round(limitMs)} ms (the caller's timeout)`) };
}

/** A body past a bound on what it holds (body-shape.ts), refused before it is parsed. */
function refusedAnswer(body: string | undefined, problem: string): Exchange {
  const uid = sniffUid(body);
  return { uid, code: 400, response: failure(uid, 400, problem) };
}

/** handleExchange does not throw by design; this is the last line of defence. */
function internalError(body: string | undefined, error: unknown): Exchange {
  const uid = sniffUid(body);
  return { uid, code: 500, response: failure(uid, 500, 'internal error; details are in the server log'), cause: error };
}

/** Which kind of implementation answered, for metrics: Lua customizations or TypeScript modules. */
function sourceOf(implementation: string | undefined): string {
  if (!implementation) return 'none';
  return implementation.startsWith('lua:') ? 'lua' : 'typescript';
}
