// The fastify application, built without listening so tests can drive it with inject() or supertest.
// Everything Karmada sees goes through handleExchange (src/protocol/exchange.ts); this file adds the
// HTTP concerns: body limit, deadline, logs, metrics and probes.
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import { requestContext } from '../interpreter/context.js';
import { handleExchange, sniffUid, type Exchange } from '../protocol/exchange.js';
import { failure } from '../protocol/wire.js';
import type { Registry } from '../interpreter/registry.js';
import { readLimitedBody, type LimitedBody } from './body.js';
import { answerWithinMs } from './deadline.js';
import { Metrics } from './metrics.js';
import { registerPreserveRoute } from './preserve-route.js';
import { Readiness } from './readiness.js';

export interface AppOptions {
  registry: Registry;
  logger: Logger;
  /** Largest accepted request body in bytes (default 8 MiB: AggregateStatus grows with member clusters). */
  bodyLimit?: number;
  metrics?: Metrics;
  readiness?: Readiness;
  /** Upper bound for one answer when Karmada's ?timeout= allows more (default 25 s). */
  maxAnswerMs?: number;
  https?: { cert: string; key: string } | null;
  /** Called after every exchange (recording, tests). Must not throw; runs off the response path. */
  onExchange?: (exchange: Exchange, durationMs: number) => void;
  /** Extra routes (e.g. /preserve), registered on the same instance. */
  routes?: (app: FastifyInstance) => void;
}

export const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;

// Above Go's default idle timeout (90 s) used by Karmada's client, so we never close a connection
// the client is about to reuse for a POST (which it would not retry).
export const KEEP_ALIVE_TIMEOUT_MS = 95_000;

export function buildApp(options: AppOptions): FastifyInstance {
  const { registry, logger } = options;
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const metrics = options.metrics ?? new Metrics();
  const readiness = options.readiness ?? new Readiness();
  const maxAnswerMs = options.maxAnswerMs ?? 25_000;

  const serverOptions: FastifyServerOptions & { https?: object | null } = {
    loggerInstance: logger,
    // One line per interpreter call is written by the handler; probes and metrics are not logged.
    logController: new LogController({ disableRequestLogging: true }),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    bodyLimit,
  };
  if (options.https) {
    serverOptions.https = {
      cert: options.https.cert,
      key: options.https.key,
      minVersion: 'TLSv1.2',
      ALPNProtocols: ['http/1.1'],
    };
  }
  const app = Fastify(serverOptions as FastifyServerOptions) as unknown as FastifyInstance;

  // We read every body ourselves: content-type, JSON and size problems must become envelope
  // answers with HTTP 200, not fastify's 415/400/413 HTTP errors that Karmada cannot log usefully.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => {
    readLimitedBody(payload, bodyLimit).then((body) => done(null, body), (error: Error) => done(error, undefined));
  });

  const interpretHandler = async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    const started = performance.now();
    metrics.inFlight.inc();
    const parsed = request.body as LimitedBody | undefined;
    const raw = {
      body: parsed?.body,
      contentType: request.headers['content-type'],
      truncatedAt: parsed?.truncatedAt,
    };
    const limitMs = answerWithinMs((request.query as Record<string, string | undefined>)?.timeout, maxAnswerMs);
    let exchange: Exchange;
    try {
      // The uid is only needed if a Lua script prints: read it from the body then, not on every request.
      let uid: string | undefined;
      const context = { get uid() { return (uid ??= sniffUid(raw.body)); }, log: request.log };
      const work = requestContext.run(context, () => handleExchange(registry, raw));
      exchange = await withDeadline(work, limitMs, () => {
        const uid = sniffUid(raw.body);
        return { uid, code: 504, response: failure(uid, 504, `interpreter did not answer within ${Math.round(limitMs)} ms (the caller's timeout)`) };
      });
    } catch (error) {
      // handleExchange does not throw by design; this is the last line of defence.
      const uid = sniffUid(raw.body);
      exchange = { uid, code: 500, response: failure(uid, 500, 'internal error; details are in the server log'), cause: error };
    } finally {
      metrics.inFlight.dec();
    }
    const durationMs = performance.now() - started;
    const labels = metrics.labels(
      exchange.apiVersion && exchange.kind ? `${exchange.apiVersion}/${exchange.kind}` : undefined,
      exchange.operation,
      () => Boolean(exchange.apiVersion && exchange.kind && registry.serves(exchange.apiVersion, exchange.kind)),
    );
    const source = sourceOf(exchange.implementation);
    metrics.observeRequest(labels, source, String(exchange.code), durationMs / 1000);
    if (exchange.reason === 'timeout') metrics.luaTimeouts.inc(labels);
    // One object per line instead of a child logger per request: same fields, a child costs ~10 µs.
    const log = request.log;
    const line = {
      uid: exchange.uid,
      apiVersion: exchange.apiVersion,
      kind: exchange.kind,
      operation: exchange.operation,
      code: exchange.code,
      durationMs: Math.round(durationMs * 1000) / 1000,
      implementation: exchange.implementation,
    };
    if (exchange.cause) log.error({ ...line, err: exchange.cause }, 'interpreter failed');
    else if (exchange.code !== 200) log.warn({ ...line, message: exchange.response.response?.status?.message }, 'interpreter request refused');
    else log.info(line, 'interpreted');
    if ((log as unknown as Logger).isLevelEnabled('debug')) {
      log.debug({ uid: exchange.uid, apiVersion: exchange.apiVersion, kind: exchange.kind, operation: exchange.operation, request: exchange.request, response: exchange.response }, 'exchange bodies');
    }
    if (options.onExchange) setImmediate(() => options.onExchange!(exchange, durationMs));
    return reply.code(200).header('content-type', 'application/json').send(JSON.stringify(exchange.response));
  };

  app.post('/interpret', interpretHandler);
  app.post('/interpret/*', interpretHandler);

  // Errors before our handler (e.g. a broken chunked body) still get an envelope on interpreter paths.
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (request.url.startsWith('/interpret')) {
      const body = (request.body as LimitedBody | undefined)?.body;
      const uid = sniffUid(body);
      request.log.warn({ err: error, uid }, 'interpreter request failed before dispatch');
      return reply.code(200).header('content-type', 'application/json').send(JSON.stringify(failure(uid, 400, `bad request: ${error.message}`)));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(error.statusCode ?? 500).send({ error: error.message });
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const report = readiness.report();
    return reply.code(report.ready ? 200 : 503).send(report);
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.header('content-type', metrics.registry.contentType).send(text);
  });

  registerPreserveRoute(app, registry);
  options.routes?.(app);
  return app;
}

/** Which kind of implementation answered, for metrics: Lua customizations vs TypeScript modules. */
function sourceOf(implementation: string | undefined): string {
  if (!implementation) return 'none';
  return implementation.startsWith('lua:') ? 'lua' : 'typescript';
}

/** Resolves with the work's result, or with onTimeout() if the work takes longer than ms. */
async function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
