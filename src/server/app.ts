// The fastify application, built without listening so tests can drive it with inject() or supertest.
// Everything Karmada sees goes through handleExchange (src/protocol/exchange.ts), called by the
// endpoint in interpret-endpoint.ts (deadline, logs, metrics, recording); interpret-server.ts serves
// /interpret on real connections without fastify's per-request work. This file wires them together
// with the body limit, probes and the shutdown behaviour.
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import { sniffUid, type Exchange } from '../protocol/exchange.ts';
import { failure } from '../protocol/wire.ts';
import type { Registry } from '../interpreter/registry.ts';
import { readLimitedBody, type LimitedBody } from './body.ts';
import { BodyBudget, reservedBytes } from './body-budget.ts';
import { createInterpretEndpoint } from './interpret-endpoint.ts';
import { interpretServerFactory } from './interpret-server.ts';
import { Metrics } from './metrics.ts';
import { registerPreserveRoute } from './preserve-route.ts';
import { Readiness } from './readiness.ts';

export interface AppOptions {
  registry: Registry;
  logger: Logger;
  /** Largest accepted request body in bytes (default 8 MiB: AggregateStatus grows with member clusters). */
  bodyLimit?: number;
  /**
   * Request bytes held at once across /interpret calls (default 32 MiB); calls beyond it wait their
   * turn, unread. One call is always let through.
   */
  inflightBodyLimit?: number;
  metrics?: Metrics;
  readiness?: Readiness;
  /** Upper bound for one answer when Karmada's ?timeout= allows more (default 25 s). */
  maxAnswerMs?: number;
  https?: { cert: string; key: string } | null;
  /** Called after every exchange (recording, tests). Must not throw; runs off the response path. */
  onExchange?: (exchange: Exchange, durationMs: number) => void;
  /** True once shutdown began: answers then carry Connection: close so clients move to other replicas. */
  draining?: () => boolean;
  /** Extra routes (e.g. /preserve), registered on the same instance. */
  routes?: (app: FastifyInstance) => void;
}

export const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;

// Four bodies of the largest default size at once; thousands of usual ones (2-40 KiB).
export const DEFAULT_INFLIGHT_BODY_LIMIT = 32 * 1024 * 1024;

// Above Go's default idle timeout (90 s) used by Karmada's client, so we never close a connection
// the client is about to reuse for a POST (which it would not retry).
export const KEEP_ALIVE_TIMEOUT_MS = 95_000;

// Karmada gives a webhook call at most 30 s (timeoutSeconds); a request still arriving after twice that
// has no caller left.
export const REQUEST_TIMEOUT_MS = 60_000;

export function buildApp(options: AppOptions): FastifyInstance {
  const { registry, logger } = options;
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const metrics = options.metrics ?? new Metrics();
  const readiness = options.readiness ?? new Readiness();
  const maxAnswerMs = options.maxAnswerMs ?? 25_000;
  const bodyBudget = new BodyBudget(options.inflightBodyLimit ?? DEFAULT_INFLIGHT_BODY_LIMIT);
  metrics.watchBodyBudget(bodyBudget);

  const endpoint = createInterpretEndpoint({ registry, metrics, maxAnswerMs, onExchange: options.onExchange });
  const draining = options.draining ?? (() => false);
  let closing = false;
  const serverOptions: FastifyServerOptions = {
    loggerInstance: logger,
    // One line per interpreter call is written by the endpoint; probes and metrics are not logged.
    logController: new LogController({ disableRequestLogging: true }),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    bodyLimit,
    // Our serverFactory creates the server; fastify reads `https` only to say https:// in its listen log.
    ...(options.https ? { https: options.https } : {}),
    serverFactory: interpretServerFactory({
      https: options.https,
      bodyLimit,
      bodyBudget,
      keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      endpoint,
      logger,
      closing: () => closing,
      draining,
    }),
  };
  const app = Fastify(serverOptions) as unknown as FastifyInstance;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Bodies fastify reads (/preserve; /interpret through inject()) are held to the same budget as the
  // /interpret fast path: the request goes on to its body parser once it fits.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD') return done();
    const bytes = reservedBytes(request.raw, bodyLimit);
    if (bodyBudget.take(bytes)) {
      reply.raw.once('close', () => bodyBudget.give(bytes));
      return done();
    }
    const cancel = bodyBudget.wait(bytes, () => done());
    reply.raw.once('close', () => {
      if (!cancel()) bodyBudget.give(bytes);
    });
  });
  // While draining, every response asks the client to reconnect (Connection: close), so Karmada's
  // keep-alive connections move to other replicas instead of being cut when we close. (onSend, not
  // on arrival: requests that arrived before SIGTERM and answer after it count too.)
  app.addHook('onSend', async (_request, reply, payload) => {
    if (draining()) reply.header('connection', 'close');
    return payload;
  });

  // We read every body ourselves: content-type, JSON and size problems must become envelope
  // answers with HTTP 200, not fastify's 415/400/413 HTTP errors that Karmada cannot log usefully.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => {
    readLimitedBody(payload, bodyLimit).then((body) => done(null, body), (error: Error) => done(error, undefined));
  });

  const interpretHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const parsed = request.body as LimitedBody | undefined;
    const raw = { body: parsed?.body, contentType: request.headers['content-type'], truncatedAt: parsed?.truncatedAt };
    const body = await endpoint(raw, (request.query as Record<string, string | undefined>)?.timeout, request.log as unknown as Logger);
    return reply.code(200).header('content-type', 'application/json').send(body);
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
