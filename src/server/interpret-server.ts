// The HTTP(S) server fastify runs on, with POST /interpret answered before fastify sees the request.
// Karmada calls /interpret on every binding sync and member status change; routing, hooks and the
// request/reply objects of a framework cost ~45 µs of a ~300 µs call (profile in bench/README.md), so
// that one route is served straight from node's request event. Everything else (probes, metrics,
// /preserve, 404s, the 503s while closing) stays with fastify, and fastify's own /interpret route
// (which inject() in tests goes through) calls the same endpoint, so both paths answer identically.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Logger } from 'pino';
import { failure } from '../protocol/wire.ts';
import { readLimitedBody } from './body.ts';
import { reservedBytes, type BodyBudget } from './body-budget.ts';
import type { InterpretEndpoint } from './interpret-endpoint.ts';

export interface InterpretServerOptions {
  https: { cert: string; key: string } | null | undefined;
  bodyLimit: number;
  /** Request bytes held at once across /interpret calls; calls beyond it wait their turn, unread. */
  bodyBudget: BodyBudget;
  keepAliveTimeoutMs: number;
  /**
   * Longest time to receive one whole request (headers and body) before node answers 408 and closes the
   * connection; checked every connectionsCheckingIntervalMs (node's default: 30 s).
   */
  requestTimeoutMs: number;
  connectionsCheckingIntervalMs?: number;
  endpoint: InterpretEndpoint;
  logger: Logger;
  /** fastify is closing: let it answer (503 with Connection: close). */
  closing: () => boolean;
  /** Shutting down but still serving: ask clients to reconnect elsewhere (Connection: close). */
  draining: () => boolean;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** True for /interpret and /interpret/<anything>, with or without a query: fastify's two routes. */
export function isInterpretPath(url: string | undefined): boolean {
  if (!url) return false;
  const end = url.indexOf('?');
  const path = end < 0 ? url : url.slice(0, end);
  return path === '/interpret' || path.startsWith('/interpret/');
}

/** Karmada's ?timeout=<Go duration>, if any. */
function timeoutQuery(url: string): string | undefined {
  const start = url.indexOf('?');
  if (start < 0) return undefined;
  return new URLSearchParams(url.slice(start + 1)).get('timeout') ?? undefined;
}

/** A fastify `serverFactory`: our server, with fastify's handler for everything but /interpret. */
export function interpretServerFactory(options: InterpretServerOptions): (fastifyHandler: Handler) => Server {
  const { bodyLimit, bodyBudget, endpoint, logger } = options;

  const send = (response: ServerResponse, body: string) => {
    if (response.destroyed || response.writableEnded) return;
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    if (options.draining()) headers.connection = 'close';
    response.writeHead(200, headers);
    response.end(body);
  };

  const work = (request: IncomingMessage, response: ServerResponse) => {
    const contentType = request.headers['content-type'];
    readLimitedBody(request, bodyLimit)
      .then(
        (read) => endpoint({ body: read.body, contentType, truncatedAt: read.truncatedAt }, timeoutQuery(request.url!), logger),
        (error: Error) => {
          // e.g. a broken chunked encoding; the answer is the same envelope fastify's error handler gives.
          logger.warn({ err: error, uid: '' }, 'interpreter request failed before dispatch');
          return JSON.stringify(failure('', 400, `bad request: ${error.message}`));
        },
      )
      .then((body) => send(response, body));
  };

  const answer = (request: IncomingMessage, response: ServerResponse) => {
    const bytes = reservedBytes(request, bodyLimit);
    if (!bodyBudget.take(bytes)) return waitForRoom(request, response, bytes);
    work(request, response);
    // Sent, or the connection dropped: either way the call holds nothing more.
    response.once('close', () => bodyBudget.give(bytes));
  };

  // Kept apart from answer(): closures over each call there made V8's pretenuring likelier (body-budget.ts).
  const waitForRoom = (request: IncomingMessage, response: ServerResponse, bytes: number) => {
    const cancel = bodyBudget.wait(bytes, () => work(request, response));
    response.once('close', () => {
      if (!cancel()) bodyBudget.give(bytes);
    });
  };

  return (fastifyHandler) => {
    const handler: Handler = (request, response) => {
      if (request.method === 'POST' && isInterpretPath(request.url) && !options.closing()) answer(request, response);
      else fastifyHandler(request, response);
    };
    // A request must arrive whole within requestTimeoutMs (fastify's own servers have no limit): a client
    // that stops halfway through a body would otherwise hold its connection and buffer for ever. The time
    // we take to answer does not count.
    const timeouts = {
      requestTimeout: options.requestTimeoutMs,
      headersTimeout: options.requestTimeoutMs,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      ...(options.connectionsCheckingIntervalMs ? { connectionsCheckingInterval: options.connectionsCheckingIntervalMs } : {}),
    };
    const server: Server = options.https
      ? createHttpsServer({ cert: options.https.cert, key: options.https.key, minVersion: 'TLSv1.2', ALPNProtocols: ['http/1.1'], ...timeouts }, handler)
      : createHttpServer(timeouts, handler);
    return server;
  };
}
