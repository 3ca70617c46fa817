// The fastify application, built without listening so tests drive the same code (inject() or a real
// connection): request bodies within the byte budget, POST /interpret (interpret-route.ts), POST
// /preserve, the probes and /metrics, and answers that ask clients to reconnect while shutting down.
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from '../interpreter/registry.ts';
import type { Exchange } from '../protocol/exchange.ts';
import type { RecordMeta } from '../record/recorder.ts';
import type { EvaluateRules, ReflectStatus } from '../preservation/preserve.ts';
import { registerInterpretRoute } from './interpret-route.ts';
import { OnePerTurn } from './one-per-turn.ts';
import { Metrics } from './metrics.ts';
import { registerPreserveRoute } from './preserve-route.ts';
import { Readiness } from './readiness.ts';
import { BodyBudget, DEFAULT_BODY_IDLE_MS, DEFAULT_BODY_LIMIT, DEFAULT_INFLIGHT_BODY_LIMIT, Reservation, type ReadBody } from './request-body.ts';

export interface AppOptions {
  registry: Registry;
  logger: Logger;
  /** Largest accepted request body in bytes (default 8 MiB: AggregateStatus grows with member clusters). */
  bodyLimit?: number;
  /** Request bytes held at once across calls (default 32 MiB). */
  inflightBodyLimit?: number;
  /** A body that stops arriving this long is cut (default 5 s). */
  bodyIdleMs?: number;
  metrics?: Metrics;
  readiness?: Readiness;
  /** Upper bound for one answer when Karmada's ?timeout= allows more (default 25 s). */
  maxAnswerMs?: number;
  https?: { cert: string; key: string } | null;
  /** Called after every exchange (recording, tests), off the response path. Must not throw. */
  onExchange?: (exchange: Exchange, durationMs: number, meta: RecordMeta) => void;
  /** True once shutdown began: answers then carry Connection: close so clients move to other replicas. */
  draining?: () => boolean;
  /** Runs state-preservation rules (user JSONPath) for /preserve; in-process when not given. */
  evaluatePreservation?: EvaluateRules;
  /** InterpretStatus for /preserve; the registry's when not given. */
  reflectStatus?: ReflectStatus;
}

// Above Go's default idle timeout (90 s) used by Karmada's client, so we never close a connection
// the client is about to reuse for a POST (which it would not retry).
export const KEEP_ALIVE_TIMEOUT_MS = 95_000;
// Karmada gives a webhook call at most 30 s (timeoutSeconds); a request still arriving after twice that
// has no caller left. Node answers 408 and closes the connection.
export const REQUEST_TIMEOUT_MS = 60_000;
export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;
// After the handshake, the first request's headers must arrive as soon (connections.ts says why).
export const FIRST_REQUEST_TIMEOUT_MS = 10_000;

declare module 'fastify' {
  interface FastifyRequest {
    /** performance.now() when the request's headers arrived: its deadline counts from here. */
    arrivedAt: number;
    /** Its body's bytes in the budget, given back when the answer is sent. */
    reservation?: Reservation;
  }
}

export function buildApp(options: AppOptions): FastifyInstance {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const bodyIdleMs = options.bodyIdleMs ?? DEFAULT_BODY_IDLE_MS;
  const metrics = options.metrics ?? new Metrics();
  const readiness = options.readiness ?? new Readiness();
  const largeSteps = new OnePerTurn();
  const budget = new BodyBudget(options.inflightBodyLimit ?? DEFAULT_INFLIGHT_BODY_LIMIT, largeSteps);
  metrics.watchBodyBudget(budget);
  const draining = options.draining ?? (() => false);

  const serverOptions: FastifyServerOptions = {
    loggerInstance: options.logger,
    // The interpret route writes one line per call; probes and scrapes are not logged.
    logController: new LogController({ disableRequestLogging: true }),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Shutdown closes connections itself (start.ts), without cutting a request that is arriving.
    forceCloseConnections: false,
    return503OnClosing: false,
    ...(options.https
      ? {
          https: {
            cert: options.https.cert,
            key: options.https.key,
            minVersion: 'TLSv1.2',
            ALPNProtocols: ['http/1.1'],
            handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS,
          },
        }
      : {}),
  };
  const app = Fastify(serverOptions) as unknown as FastifyInstance;
  answerAfterParsing(app);
  app.decorateRequest('arrivedAt', 0);
  app.decorateRequest('reservation', undefined);

  app.addHook('onRequest', (request, reply, done) => {
    request.arrivedAt = performance.now();
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const reservation = new Reservation(budget);
      request.reservation = reservation;
      // Answered, or the connection dropped: the request holds no more bytes once its work has stopped too.
      reply.raw.once('close', () => reservation.answeredOrClosed());
    }
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining()) reply.header('connection', 'close');
    done(null, payload);
  });

  // Every body is read by the budget; content-type, JSON and size problems become envelope answers
  // (HTTP 200) on /interpret, not fastify's 415/400/413 that Karmada cannot log usefully.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    budget.read(payload, bodyLimit, bodyIdleMs, request.reservation ?? new Reservation(budget)).then(
      (body: ReadBody) => done(null, body),
      (error: Error) => done(error, undefined),
    );
  });

  registerInterpretRoute(app, { registry: options.registry, metrics, maxAnswerMs: options.maxAnswerMs ?? 25_000, onExchange: options.onExchange, largeSteps });
  registerPreserveRoute(app, options.registry, { evaluate: options.evaluatePreservation, reflect: options.reflectStatus });

  registerProbes(app, metrics, readiness);
  return app;
}

/**
 * Node's HTTP/1 server loses a connection whose answer is written while its parser is still going through
 * a chunk of pipelined requests (the write pauses and resumes the parser inside its own run, which then
 * stops with HPE_PAUSED and the connection is destroyed with every queued answer: 1 of 1,000 pipelined
 * GET /healthz answered). A request that arrives while an earlier one on its connection is unanswered
 * (pipelined) is handed to fastify on the next turn of the event loop, so its answer is written outside
 * the parser's run; node then holds further pipelined requests back by itself while answers queue. A
 * request alone on its connection (Karmada's, which never pipelines) is handed over at once, as before.
 */
function answerAfterParsing(app: FastifyInstance): void {
  const server = app.server;
  const unanswered = new WeakMap<Socket, number>();
  for (const handler of server.listeners('request') as Array<(request: IncomingMessage, response: ServerResponse) => void>) {
    server.removeListener('request', handler);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const socket = request.socket;
      const before = unanswered.get(socket) ?? 0;
      unanswered.set(socket, before + 1);
      response.once('close', () => unanswered.set(socket, (unanswered.get(socket) ?? 1) - 1));
      if (before === 0) handler(request, response);
      else setImmediate(handler, request, response);
    });
  }
}

/** The plain-HTTP listener for Prometheus and probes (--metrics-bind-address): /metrics, /healthz, /readyz. */
export function buildMetricsApp(metrics: Metrics, readiness: Readiness, logger: Logger): FastifyInstance {
  const app = Fastify({ loggerInstance: logger, logController: new LogController({ disableRequestLogging: true }) }) as unknown as FastifyInstance;
  answerAfterParsing(app);
  registerProbes(app, metrics, readiness);
  return app;
}

function registerProbes(app: FastifyInstance, metrics: Metrics, readiness: Readiness): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const report = readiness.report();
    return reply.code(report.ready ? 200 : 503).send(report);
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.header('content-type', metrics.registry.contentType).send(text);
  });
}
