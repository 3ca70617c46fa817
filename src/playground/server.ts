// The playground's own HTTP server (plain HTTP on loopback): the page, its built assets and the JSON API.
// It runs untrusted input from whoever can reach it, so every request must come from the page itself:
// - Host must be the address it listens on (127.0.0.1:PORT, localhost:PORT, [::1]:PORT): a DNS-rebound
//   name (evil.example resolving to 127.0.0.1) carries its own Host and is refused;
// - an Origin, when sent (browsers send it on every POST and on cross-origin fetches), must be the page's;
// - every /api call carries the per-start token, which only the page (same origin) can read;
// - bodies are bounded like /interpret's, and Lua runs on the server's worker pool with its limits.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { DEFAULT_BODY_LIMIT } from '../server/request-body.ts';
import type { SampleLibrary } from './cases.ts';
import { importText } from './cases.ts';
import type { PlaygroundEngine, RunRequest } from './engine.ts';
import { pageHtml } from './page.ts';

const gzipAsync = promisify(gzip);

export const TOKEN_HEADER = 'x-playground-token';

export interface PlaygroundOptions {
  engine: PlaygroundEngine;
  samples: SampleLibrary;
  /** The built front-end (dist/playground): main.js and main.css. */
  assetsDir: string;
  /** Per-start secret; a random one when omitted. */
  token?: string;
  bodyLimit?: number;
  /** Served kinds for the picker. */
  kinds: Array<{ apiVersion: string; kind: string; operations: string[]; layer: string }>;
}

/** The assets the page loads; nothing else is served from the folder. */
const ASSETS: Record<string, string> = { 'main.js': 'text/javascript; charset=utf-8', 'main.css': 'text/css; charset=utf-8' };

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export interface PlaygroundApp {
  app: FastifyInstance;
  token: string;
  /** Set once listening: the hosts a request may name (Host header values). */
  allowHosts(port: number): void;
}

export function buildPlaygroundApp(options: PlaygroundOptions): PlaygroundApp {
  const token = options.token ?? newToken();
  const app = Fastify({ bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT, logger: false }) as unknown as FastifyInstance;
  let hosts = new Set<string>();
  const assets = new Map<string, Promise<{ raw: Buffer; gzip: Buffer } | undefined>>();

  app.addHook('onRequest', async (request, reply) => {
    const host = request.headers.host ?? '';
    if (!hosts.has(host.toLowerCase())) return reply.code(403).send({ error: `refused: Host ${JSON.stringify(host)} is not this playground's address` });
    const origin = request.headers.origin;
    if (origin !== undefined && !hosts.has(originHost(origin))) return reply.code(403).send({ error: `refused: cross-origin request from ${origin}` });
    const site = request.headers['sec-fetch-site'];
    if (request.method !== 'GET' && site !== undefined && site !== 'same-origin' && site !== 'none') {
      return reply.code(403).send({ error: `refused: a ${site} request` });
    }
    if (request.url.startsWith('/api/') && !tokenMatches(request.headers[TOKEN_HEADER], token)) {
      return reply.code(403).send({ error: 'refused: missing or wrong playground token (reload the page)' });
    }
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    // The page loads only its own script and style and talks only to this server; nothing frames it.
    reply.header(
      'content-security-policy',
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('cache-control', 'no-store');
    return payload;
  });

  app.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8').send(pageHtml(token)));
  app.get('/assets/:name', async (request, reply) => {
    const name = (request.params as { name: string }).name;
    const type = ASSETS[name];
    if (!type) return reply.code(404).send({ error: 'not found' });
    if (!assets.has(name)) assets.set(name, loadAsset(join(options.assetsDir, name)));
    const content = await assets.get(name)!;
    if (!content) return reply.code(404).send({ error: `${name} is not built: run npm run build` });
    reply.type(type).header('vary', 'accept-encoding');
    if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(content.gzip);
    return reply.send(content.raw);
  });

  app.get('/api/kinds', async () => ({ kinds: options.kinds, samples: options.samples.list(), karmada: options.engine.hasKarmada }));
  app.post('/api/run', async (request, reply) => {
    const body = runBody(request, reply);
    return body && options.engine.run(body);
  });
  app.post('/api/export', async (request, reply) => {
    const body = runBody(request, reply);
    return body && options.engine.exportCase(body);
  });
  app.post('/api/preserve', async (request, reply) => {
    const body = objectBody(request, reply);
    if (!body) return;
    return options.engine.preserve(text(body.customization), text(body.rules), text(body.member));
  });
  app.post('/api/open', async (request, reply) => {
    const body = objectBody(request, reply);
    return body && importText(text(body.text));
  });
  app.post('/api/sample', async (request, reply) => {
    const body = objectBody(request, reply);
    if (!body) return;
    if (typeof body.kind === 'string') return options.samples.defaults(text(body.apiVersion), body.kind);
    return options.samples.read(text(body.file));
  });

  return {
    app,
    token,
    allowHosts(port: number) {
      hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
    },
  };
}

/** An asset and its gzip form, compressed once: the page's transfer size is the compressed one (docs/playground.md). */
async function loadAsset(path: string): Promise<{ raw: Buffer; gzip: Buffer } | undefined> {
  const raw = await readFile(path).catch(() => undefined);
  return raw && { raw, gzip: await gzipAsync(raw, { level: 9 }) };
}

function originHost(origin: string): string {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' ? url.host.toLowerCase() : '';
  } catch {
    return '';
  }
}

function tokenMatches(given: string | string[] | undefined, token: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function objectBody(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> | undefined {
  const body = request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    void reply.code(400).send({ error: 'body must be a JSON object' });
    return undefined;
  }
  return body as Record<string, unknown>;
}

function runBody(request: FastifyRequest, reply: FastifyReply): RunRequest | undefined {
  const body = objectBody(request, reply);
  if (!body) return undefined;
  const items = Array.isArray(body.statusItems) ? body.statusItems.map(text) : [];
  const replicas = typeof body.replicas === 'number' && Number.isInteger(body.replicas) && body.replicas >= 0 ? body.replicas : 1;
  return { customization: text(body.customization), template: text(body.template), member: text(body.member), statusItems: items, replicas };
}
