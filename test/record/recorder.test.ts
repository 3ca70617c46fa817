import { mkdtemp, readFile, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pino } from 'pino';
import { Registry as PromRegistry } from 'prom-client';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/interpreter/setup.ts';
import type { Exchange } from '../../src/protocol/exchange.ts';
import { listExchangeFiles, readExchange } from '../../src/record/format.ts';
import { REDACTED } from '../../src/record/redact.ts';
import { ExchangeRecorder, type RecorderOptions } from '../../src/record/recorder.ts';
import { serverVersion } from '../../src/record/server-version.ts';
import { buildApp } from '../../src/server/app.ts';

const loaded = await createRegistry();
afterAll(() => loaded.close());

const fixture = 'test/fixtures/apps.kruise.io/CloneSet/ReviseReplica-partition-split.json';
const fixtureRequest = async () => (await readExchange(fixture)).request;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function logSink() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** A clock that advances one second per reading, so every recording has its own time. */
function steppingClock(start = Date.parse('2026-11-22T01:00:00.000Z')) {
  let t = start;
  return () => new Date((t += 1000));
}

function recorder(options: Partial<RecorderOptions> = {}) {
  const metricsRegistry = new PromRegistry();
  const sink = logSink();
  const rec = new ExchangeRecorder({ dir, logger: sink.logger, metricsRegistry, now: steppingClock(), ...options });
  const failures = async (reason: string) => {
    const metric = await metricsRegistry.getSingleMetric('karmada_interpreter_record_failures_total')!.get();
    return metric.values.find((v) => v.labels.reason === reason)?.value ?? 0;
  };
  return { rec, sink, failures, metricsRegistry };
}

async function appWith(rec: ExchangeRecorder) {
  return buildApp({ registry: loaded.registry, logger: pino({ level: 'silent' }), onExchange: (e, ms) => rec.record(e, ms) });
}

const post = (app: Awaited<ReturnType<typeof appWith>>, body: unknown) =>
  app.inject({ method: 'POST', url: '/interpret?timeout=10s', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });

/** A minimal exchange as the app hands it over, for tests of the queue itself. */
function exchangeFor(uid: string, operation = 'InterpretHealth'): Exchange {
  const request = {
    uid,
    kind: { group: 'apps.kruise.io', version: 'v1alpha1', kind: 'CloneSet' },
    name: 'web',
    namespace: 'shop',
    operation,
    object: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'web' } },
    replicas: 0,
  };
  return {
    uid,
    code: 200,
    request,
    response: { apiVersion: 'config.karmada.io/v1alpha1', kind: 'ResourceInterpreterContext', response: { uid, successful: true, healthy: true } },
  };
}

describe('ExchangeRecorder through the app', () => {
  it('writes each exchange as one file named <group>_<version>_<Kind>/<Operation>/<time>-<uid>.json with the recorded fields', async () => {
    const { rec } = recorder();
    const app = await appWith(rec);
    const request = await fixtureRequest();
    const reply = await post(app, request);
    await new Promise((resolve) => setImmediate(resolve));
    await rec.flush();
    await app.close();

    const files = await listExchangeFiles([dir]);
    expect(files.map((f) => relative(dir, f))).toEqual([
      join('apps.kruise.io_v1alpha1_CloneSet', 'ReviseReplica', `20261122T010001.000Z-${request.request!.uid}.json`),
    ]);
    const recorded = await readExchange(files[0]!);
    expect(recorded.request).toEqual(request);
    expect(recorded.response).toEqual(JSON.parse(reply.body));
    expect(recorded.serverVersion).toBe(serverVersion());
    expect(recorded.serverVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(recorded.time).toBe('2026-11-22T01:00:01.000Z');
    expect(recorded.durationMs).toBeGreaterThan(0);
  });

  it('names files so that a sorted listing runs by kind, then operation, then time', async () => {
    const { rec } = recorder();
    for (const [uid, op] of [
      ['c', 'Retain'],
      ['a', 'InterpretHealth'],
      ['b', 'Retain'],
      ['d', 'InterpretHealth'],
    ] as const)
      rec.record(exchangeFor(uid, op), 1);
    await rec.flush();
    const uids = await Promise.all((await listExchangeFiles([dir])).map(async (f) => (await readExchange(f)).request.request!.uid));
    expect(uids).toEqual(['a', 'd', 'c', 'b']);
  });

  it('never uses request data as a path: uid and kind are reduced to safe file-name characters', async () => {
    const { rec } = recorder();
    const exchange = exchangeFor('../../escape');
    exchange.request!.kind.kind = '../Evil';
    rec.record(exchange, 1);
    await rec.flush();
    const files = await listExchangeFiles([dir]);
    expect(files).toHaveLength(1);
    expect(relative(dir, files[0]!).startsWith('..')).toBe(false);
    expect(relative(dir, files[0]!)).toBe(join('apps.kruise.io_v1alpha1_.._Evil', 'InterpretHealth', '20261122T010001.000Z-_.._.._escape.json'));
  });

  it('skips exchanges whose request could not be read (malformed bodies)', async () => {
    const { rec } = recorder();
    const app = await appWith(rec);
    const reply = await app.inject({ method: 'POST', url: '/interpret', headers: { 'content-type': 'application/json' }, payload: '{not json' });
    expect(JSON.parse(reply.body).response.status.code).toBe(400);
    await new Promise((resolve) => setImmediate(resolve));
    await rec.flush();
    await app.close();
    expect(await listExchangeFiles([dir])).toEqual([]);
  });
});

describe('queue bound', () => {
  it('keeps at most queueSize exchanges waiting (besides the one being written), drops and counts the rest', async () => {
    const { rec, failures } = recorder({ queueSize: 2 });
    for (let i = 0; i < 6; i++) rec.record(exchangeFor(`u${i}`), 1);
    await rec.flush();
    expect(rec.counts).toEqual({ recorded: 3, dropped: 3, failed: 0, replayed: 0 });
    expect(await failures('queue_full')).toBe(3);
    expect((await listExchangeFiles([dir])).length).toBe(3);
    // Once drained, the queue accepts again.
    rec.record(exchangeFor('later'), 1);
    await rec.flush();
    expect(rec.counts.recorded).toBe(4);
  });
});

describe('max-files rotation', () => {
  it('deletes the oldest recordings, including ones found in the folder at start', async () => {
    const old = join(dir, 'apps.kruise.io_v1alpha1_CloneSet', 'Retain');
    await mkdir(old, { recursive: true });
    await writeFile(join(old, '20250101T000000.000Z-old.json'), JSON.stringify({ request: await fixtureRequest(), response: null }));
    const { rec } = recorder({ maxFiles: 3 });
    for (let i = 1; i <= 4; i++) rec.record(exchangeFor(`u${i}`), 1);
    await rec.flush();
    const uids = await Promise.all((await listExchangeFiles([dir])).map(async (f) => (await readExchange(f)).request.request!.uid));
    expect(uids.sort()).toEqual(['u2', 'u3', 'u4']);
  });

  it('gives a repeated uid in the same millisecond its own file instead of overwriting', async () => {
    const { rec } = recorder({ now: () => new Date('2026-11-22T01:00:00.000Z') });
    rec.record(exchangeFor('same'), 1);
    rec.record(exchangeFor('same'), 2);
    await rec.flush();
    const names = (await readdir(join(dir, 'apps.kruise.io_v1alpha1_CloneSet', 'InterpretHealth'))).sort();
    expect(names).toEqual(['20261122T010000.000Z-same-1.json', '20261122T010000.000Z-same.json']);
  });
});

describe('a record folder cleaned up while recording', () => {
  it('gets its folders created again', async () => {
    const { rec } = recorder();
    rec.record(exchangeFor('before'), 1);
    await rec.flush();
    await rm(join(dir, 'apps.kruise.io_v1alpha1_CloneSet'), { recursive: true });
    rec.record(exchangeFor('after'), 1);
    await rec.flush();
    expect(rec.counts).toMatchObject({ recorded: 2, failed: 0 });
    const uids = await Promise.all((await listExchangeFiles([dir])).map(async (f) => (await readExchange(f)).request.request!.uid));
    expect(uids).toEqual(['after']);
  });
});

describe('an unwritable record folder', () => {
  it('never fails a request: answers stay correct, failures are counted and logged once', async () => {
    const blocker = join(dir, 'a-file');
    await writeFile(blocker, 'not a folder');
    const { rec, sink, failures } = recorder({ dir: join(blocker, 'records') });
    const app = await appWith(rec);
    const request = await fixtureRequest();
    const expected = (await readExchange(fixture)).response;
    for (let i = 0; i < 3; i++) {
      const reply = await post(app, request);
      expect(reply.statusCode).toBe(200);
      expect(JSON.parse(reply.body)).toEqual(expected);
    }
    await new Promise((resolve) => setImmediate(resolve));
    await rec.flush();
    await app.close();
    expect(rec.counts.recorded).toBe(0);
    expect(rec.counts.failed).toBe(3);
    expect(await failures('write')).toBe(4); // the start-up folder check + three writes
    const errors = sink.lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(String((errors[0]!.err as { code?: string }).code)).toBe('ENOTDIR');
  });

  it('logs again after it recovered and failed anew', async () => {
    const { rec, sink } = recorder();
    rec.record(exchangeFor('ok1'), 1);
    await rec.flush();
    // Make the kind folder unusable: a file where the operation folder should be.
    const kindDir = join(dir, 'apps.kruise.io_v1alpha1_CloneSet');
    await rm(kindDir, { recursive: true });
    await writeFile(kindDir, 'blocked');
    rec.record(exchangeFor('bad1'), 1);
    rec.record(exchangeFor('bad2'), 1);
    await rec.flush();
    await rm(kindDir);
    rec.record(exchangeFor('ok2'), 1);
    await rec.flush();
    await rm(kindDir, { recursive: true });
    await writeFile(kindDir, 'blocked');
    rec.record(exchangeFor('bad3'), 1);
    await rec.flush();
    expect(sink.lines.filter((l) => l.level === 50)).toHaveLength(2);
    expect(sink.lines.some((l) => l.msg === 'recording exchanges again')).toBe(true);
  });
});

describe('redaction', () => {
  const withSecrets = async () => {
    const request = await fixtureRequest();
    const object = request.request!.object as Record<string, any>;
    object.metadata.annotations = { ...object.metadata.annotations, 'kubectl.kubernetes.io/last-applied-configuration': '{"secret":"hunter2"}' };
    object.spec.template.spec.containers[0].env = [{ name: 'DB_PASSWORD', value: 'hunter2' }];
    return request;
  };

  it('is on by default: the file carries the placeholder and the pointers, never the values', async () => {
    const { rec } = recorder();
    const app = await appWith(rec);
    await post(app, await withSecrets());
    await new Promise((resolve) => setImmediate(resolve));
    await rec.flush();
    await app.close();
    const [file] = await listExchangeFiles([dir]);
    const text = await readFile(file!, 'utf8');
    expect(text).not.toContain('hunter2');
    expect(text).toContain(REDACTED);
    expect((await readExchange(file!)).redacted).toEqual([
      '/request/request/object/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration',
      '/request/request/object/spec/template/spec/containers/0/env/0/value',
    ]);
  });

  it('is off with keepSecrets', async () => {
    const { rec } = recorder({ keepSecrets: true });
    const app = await appWith(rec);
    await post(app, await withSecrets());
    await new Promise((resolve) => setImmediate(resolve));
    await rec.flush();
    await app.close();
    const [file] = await listExchangeFiles([dir]);
    const recorded = await readExchange(file!);
    expect(JSON.stringify(recorded)).toContain('hunter2');
    expect(recorded.redacted).toBeUndefined();
  });
});
