// Thousands of random and mutated envelopes at /interpret (fastify inject, the real registry with
// every built-in kind and Lua example): every answer is HTTP 200 with a well-formed envelope, nothing
// throws, the server keeps answering normal requests afterwards, and no prototype is polluted.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry, type LoadedRegistry } from '../../src/interpreter/setup.ts';
import { buildApp } from '../../src/server/app.ts';
import { silentLogger } from '../support/app.ts';
import { expectWellFormed } from './envelope-check.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const OPERATIONS = [
  'InterpretReplica',
  'ReviseReplica',
  'InterpretComponent',
  'Retain',
  'AggregateStatus',
  'InterpretStatus',
  'InterpretHealth',
  'InterpretDependency',
  'Prune',
  'Bogus',
  '',
];

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? jsonFiles(path) : name.endsWith('.json') ? [path] : [];
  });
}

/** Real-shaped requests: the recorded fixtures of every built-in kind and the curl examples. */
const seeds: unknown[] = [
  ...jsonFiles(join(ROOT, 'test/fixtures')).map((f) => JSON.parse(readFileSync(f, 'utf8')).request),
  ...jsonFiles(join(ROOT, 'examples/requests')).map((f) => JSON.parse(readFileSync(f, 'utf8'))),
].map((r) => (r && (r as { request?: unknown }).request ? r : { apiVersion: 'config.karmada.io/v1alpha1', kind: 'ResourceInterpreterContext', request: r }));

/** Every path (as key lists) in a JSON value, the root included. */
function paths(value: unknown, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []) {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...prefix, i], out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  return out;
}

type Mutation = { at: number; how: 'delete' | 'replace' | 'confuse' | 'operation' | 'replicas' | 'addKey'; value: unknown; key: string; n: number };

function mutate(seed: unknown, mutations: Mutation[]): unknown {
  let doc = structuredClone(seed) as any;
  for (const m of mutations) {
    const all = paths(doc);
    const path = all[m.at % all.length]!;
    const parent = path.slice(0, -1).reduce((o: any, k) => o?.[k], doc);
    const last = path.at(-1);
    const current = path.reduce((o: any, k) => o?.[k], doc);
    switch (m.how) {
      case 'operation':
        if (doc?.request && typeof doc.request === 'object') doc.request.operation = OPERATIONS[m.n % OPERATIONS.length];
        break;
      case 'replicas':
        if (doc?.request && typeof doc.request === 'object') doc.request.replicas = [m.n, -m.n, 2 ** 31, 1.5, 1e300, '3', null][m.n % 7];
        break;
      case 'addKey':
        if (current && typeof current === 'object' && !Array.isArray(current))
          Object.defineProperty(current, m.key, { value: m.value, enumerable: true, configurable: true, writable: true });
        break;
      default:
        if (last === undefined) doc = m.how === 'delete' ? undefined : m.value;
        else if (m.how === 'delete') {
          if (Array.isArray(parent)) parent.splice(last as number, 1);
          else delete parent[last];
        } else if (m.how === 'replace') parent[last] = m.value;
        else
          parent[last] =
            typeof current === 'number'
              ? String(current)
              : typeof current === 'string'
                ? Number(current.length)
                : Array.isArray(current)
                  ? {}
                  : current && typeof current === 'object'
                    ? []
                    : current === null
                      ? {}
                      : null;
    }
  }
  return doc;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  how: fc.constantFrom('delete', 'replace', 'confuse', 'operation', 'replicas', 'addKey'),
  value: fc.jsonValue({ maxDepth: 3 }),
  key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'polluted', 'status', 'spec', 'replicas'), fc.string({ maxLength: 8 })),
  n: fc.nat({ max: 1000 }),
});

describe('fuzzing /interpret', () => {
  let loaded: LoadedRegistry;
  let app: ReturnType<typeof buildApp>;
  beforeAll(async () => {
    loaded = await createRegistry();
    app = buildApp({ registry: loaded.registry, logger: silentLogger });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    loaded.close();
  });

  const post = (payload: string | Buffer, contentType: string | undefined = 'application/json', url = '/interpret?timeout=10s') =>
    app.inject({ method: 'POST', url, headers: contentType === undefined ? {} : { 'content-type': contentType }, payload });

  it(`mutated real requests (${seeds.length} seeds) always get a well-formed envelope`, async () => {
    expect(seeds.length).toBeGreaterThan(20);
    let successes = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 4 }), async (pick, mutations) => {
        const sent = mutate(seeds[pick % seeds.length], mutations);
        const reply = await post(JSON.stringify(sent) ?? 'null');
        if (expectWellFormed(reply.statusCode, reply.body, sent).response!.successful) successes += 1;
      }),
      { numRuns: 1200 },
    );
    // The mutations leave many requests valid, so successful paths were exercised too.
    expect(successes).toBeGreaterThan(100);
  }, 60000);

  it('random bodies, content types and paths always get a well-formed envelope', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? ''),
          fc.string({ maxLength: 200 }),
          fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
          fc
            .jsonValue({ maxDepth: 3 })
            .map((v) => JSON.stringify({ apiVersion: 'config.karmada.io/v1alpha1', kind: 'ResourceInterpreterContext', request: v })),
        ),
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'APPLICATION/JSON',
          'text/plain',
          'application/x-www-form-urlencoded',
          undefined,
        ),
        fc.constantFrom('/interpret', '/interpret?timeout=3s', '/interpret/cloneset', '/interpret?timeout=bogus', '/interpret?timeout=0s'),
        async (payload, contentType, url) => {
          const reply = await post(payload, contentType, url);
          expectWellFormed(reply.statusCode, reply.body, undefined);
        },
      ),
      { numRuns: 1500 },
    );
  }, 60000);

  it('the server still answers normally afterwards and no prototype was polluted', async () => {
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    const example = readFileSync(join(ROOT, 'examples/requests/cloneset-interpretreplica.json'), 'utf8');
    const reply = await post(example);
    expect(expectWellFormed(reply.statusCode, reply.body, JSON.parse(example)).response!.successful).toBe(true);
    expect(({} as any).polluted).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(Object.keys(Array.prototype)).toEqual([]);
  });
});
