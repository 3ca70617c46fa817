// Issue 19's recording bounds: the queue is bounded in bytes as well as entries, rotation deletes only
// this server's own recordings, no secret the request copy redacted survives anywhere in a file, and
// replayed requests are not recorded again.
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pino } from 'pino';
import { Registry as PromRegistry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/protocol/exchange.ts';
import { decodePatch, diff, encodePatch } from '../../src/protocol/patch.ts';
import type { InterpreterContext } from '../../src/protocol/wire.ts';
import { isRecordingFileName, isReplayedRequest, listExchangeFiles, readExchange, REPLAY_HEADER } from '../../src/record/format.ts';
import { DEFAULT_RECORD_QUEUE_BYTES, estimateJsonBytes, ExchangeRecorder, listRecordings, type RecorderOptions } from '../../src/record/recorder.ts';
import { MIN_EMBEDDED_SECRET_LENGTH, REDACTED, redactExchange } from '../../src/record/redact.ts';
import { urlTarget } from '../../src/record/replay.ts';
import { generateSelfSigned } from '../../src/server/certificates.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-bounds-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function steppingClock(start = Date.parse('2026-11-22T01:00:00.000Z')) {
  let t = start;
  return () => new Date((t += 1000));
}

function recorder(options: Partial<RecorderOptions> = {}) {
  return new ExchangeRecorder({ dir, logger: pino({ level: 'silent' }), metricsRegistry: new PromRegistry(), now: steppingClock(), ...options });
}

/** An exchange whose object carries `padding` characters. */
function exchangeFor(uid: string, padding = 0): Exchange {
  const request = {
    uid,
    kind: { group: 'apps.kruise.io', version: 'v1alpha1', kind: 'CloneSet' },
    name: 'web',
    namespace: 'shop',
    operation: 'InterpretHealth',
    object: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'web' }, spec: { blob: 'x'.repeat(padding) } },
    replicas: 0,
  };
  return {
    uid,
    code: 200,
    request,
    response: { apiVersion: 'config.karmada.io/v1alpha1', kind: 'ResourceInterpreterContext', response: { uid, successful: true, healthy: true } },
  };
}

describe('record queue bounded in bytes', () => {
  it('estimates an exchange near its JSON size without serialising it', () => {
    const exchange = exchangeFor('u', 10_000);
    const json = JSON.stringify(exchange.request).length;
    const estimate = estimateJsonBytes(exchange.request);
    expect(estimate).toBeGreaterThanOrEqual(json);
    expect(estimate).toBeLessThan(json * 1.2);
    // counting stops past the limit
    expect(estimateJsonBytes({ a: 'x'.repeat(100), b: { c: 'y'.repeat(100) } }, 50)).toBeLessThan(200);
  });

  it('drops exchanges once the waiting bytes would pass queueBytes, and takes them again when drained', async () => {
    const rec = recorder({ queueBytes: 25_000 });
    // the first is being written, the second waits (20 KB together), the rest do not fit
    for (let i = 0; i < 6; i++) rec.record(exchangeFor(`u${i}`, 10_000), 1);
    await rec.flush();
    expect(rec.counts).toEqual({ recorded: 2, dropped: 4, failed: 0, replayed: 0 });
    rec.record(exchangeFor('later', 10_000), 1);
    await rec.flush();
    expect(rec.counts.recorded).toBe(3);
  });

  it('still records one exchange larger than the whole budget when nothing else waits', async () => {
    const rec = recorder({ queueBytes: 1000 });
    rec.record(exchangeFor('big', 50_000), 1);
    rec.record(exchangeFor('next', 10), 1); // waits behind the big one: no room
    await rec.flush();
    expect(rec.counts).toMatchObject({ recorded: 1, dropped: 1 });
  });

  it('uses the body size the server reports instead of estimating the request', async () => {
    const rec = recorder({ queueBytes: 1_000_000 });
    rec.record(exchangeFor('first'), 1, { requestBytes: 10 });
    rec.record(exchangeFor('claims-8MiB'), 1, { requestBytes: 8 * 1024 * 1024 });
    await rec.flush();
    expect(rec.counts).toMatchObject({ recorded: 1, dropped: 1 });
    expect(DEFAULT_RECORD_QUEUE_BYTES).toBe(64 * 1024 * 1024);
  });
});

describe("rotation deletes only this server's recordings", () => {
  it('leaves every other file under DIR alone, however many recordings it deletes', async () => {
    const foreign = [
      'tsconfig.json',
      join('myproject', 'package-1.json'),
      join('myproject', 'src', 'data.json'),
      join('apps.kruise.io_v1alpha1_CloneSet', 'notes.json'),
      join('apps.kruise.io_v1alpha1_CloneSet', 'Retain', 'notes.json'),
      join('apps.kruise.io_v1alpha1_CloneSet', 'Retain', 'deeper', '20250101T000000.000Z-x.json'),
      join('.hidden_v1_Kind', 'Retain', '20250101T000000.000Z-x.json'),
    ];
    for (const file of foreign) {
      await mkdir(join(dir, file, '..'), { recursive: true });
      await writeFile(join(dir, file), '{"request":{"request":{}}}');
    }
    // A recording-shaped folder that is a link to somewhere else is not followed.
    const elsewhere = await mkdtemp(join(tmpdir(), 'record-elsewhere-'));
    try {
      await mkdir(join(elsewhere, 'Retain'));
      await writeFile(join(elsewhere, 'Retain', '20250101T000000.000Z-linked.json'), '{}');
      await symlink(elsewhere, join(dir, 'linked_v1_Kind'));
      // One real old recording, which rotation may delete.
      const old = join(dir, 'apps.kruise.io_v1alpha1_CloneSet', 'Retain', '20250101T000000.000Z-old.json');
      await writeFile(old, '{}');

      const rec = recorder({ maxFiles: 1 });
      for (let i = 0; i < 3; i++) rec.record(exchangeFor(`u${i}`), 1);
      await rec.flush();

      for (const file of foreign) expect(await readFile(join(dir, file), 'utf8')).toBe('{"request":{"request":{}}}');
      expect(await readdir(join(elsewhere, 'Retain'))).toEqual(['20250101T000000.000Z-linked.json']);
      const recordings = (await listRecordings(dir)).map((f) => relative(dir, f));
      expect(recordings).toEqual([join('apps.kruise.io_v1alpha1_CloneSet', 'InterpretHealth', '20261122T010003.000Z-u2.json')]);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('recognises exactly the names recordingPath gives', () => {
    expect(isRecordingFileName('20261122T021000.123Z-0f6c2a8e-1b2c.json')).toBe(true);
    expect(isRecordingFileName('20261122T021000.123Z-same-1.json')).toBe(true);
    expect(isRecordingFileName('package-1.json')).toBe(false);
    expect(isRecordingFileName('20261122T021000.123Z-.json')).toBe(false);
    expect(isRecordingFileName('20261122T021000.123Z-a b.json')).toBe(false);
  });
});

describe('no redacted secret survives anywhere in a recording', () => {
  const object = () => ({
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: 'web', namespace: 'shop', annotations: { 'example.com/api-token': 'tkn-4242' } },
    spec: {
      replicas: 2,
      template: {
        spec: {
          containers: [
            {
              name: 'web',
              env: [
                { name: 'DB_PASSWORD', value: 'hunter2-pw' },
                { name: 'DEBUG', value: 'on' },
              ],
            },
          ],
        },
      },
    },
  });
  const envelope = (operation: string, extra: object = {}): InterpreterContext => ({
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterContext',
    request: {
      uid: 'u1',
      kind: { group: 'apps.kruise.io', version: 'v1alpha1', kind: 'CloneSet' },
      name: 'web',
      namespace: 'shop',
      operation,
      object: object() as never,
      replicas: 0,
      ...extra,
    },
  });
  const answer = (response: object): InterpreterContext => ({
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterContext',
    response: { uid: 'u1', successful: true, ...response },
  });

  it('a patch that copies an env value into another field (a Retain script) is rebuilt without it and marked', () => {
    const original = object();
    const patched = { ...object(), spec: { ...object().spec, leaked: 'hunter2-pw', tokenCopy: ['tkn-4242'] } };
    const recorded = redactExchange({
      request: envelope('Retain', { observedObject: object() }),
      response: answer({ patchType: 'JSONPatch', patch: encodePatch(diff(original, patched)) }),
    });
    const text = JSON.stringify(recorded);
    expect(text).not.toContain('hunter2-pw');
    expect(text).not.toContain('tkn-4242');
    const patch = recorded.response!.response!.patch!;
    expect(Buffer.from(patch, 'base64').toString()).not.toContain('hunter2');
    expect(decodePatch(patch)).toEqual(expect.arrayContaining([{ op: 'add', path: '/spec/leaked', value: REDACTED }]));
    expect(recorded.redacted).toContain('/response/response/patch');
  });

  it('a Secret the patch writes (an AggregateStatus copying data into status) is rebuilt without its values', () => {
    const withSecret = { ...object(), kind: 'CloneSet', status: {} };
    const patched = { ...withSecret, status: { secretCopy: { kind: 'Secret', data: { password: 'c2VjcmV0LXBhc3M=' } } } };
    const recorded = redactExchange({
      request: envelope('AggregateStatus'),
      response: answer({ patchType: 'JSONPatch', patch: encodePatch(diff(object(), patched)) }),
    });
    expect(Buffer.from(recorded.response!.response!.patch!, 'base64').toString()).not.toContain('c2VjcmV0LXBhc3M=');
  });

  it('rawStatus, requirements and other answer fields lose copies of redacted values', () => {
    const recorded = redactExchange({
      request: envelope('InterpretStatus'),
      response: answer({ rawStatus: { password: 'hunter2-pw', nested: ['tkn-4242', 'fine'], debug: 'on' } }),
    });
    expect(recorded.response!.response!.rawStatus).toEqual({ password: REDACTED, nested: [REDACTED, 'fine'], debug: REDACTED });
    expect(recorded.redacted).toEqual(expect.arrayContaining(['/response/response/rawStatus/password', '/response/response/rawStatus/nested/0']));
  });

  it("a refused answer's message has the values cut out; values shorter than MIN_EMBEDDED_SECRET_LENGTH only as whole strings", () => {
    const recorded = redactExchange({
      request: envelope('InterpretHealth'),
      response: {
        apiVersion: 'config.karmada.io/v1alpha1',
        kind: 'ResourceInterpreterContext',
        response: { uid: 'u1', successful: false, status: { code: 500, message: 'lua: bad value hunter2-pw (debug on)' } },
      },
    });
    expect(recorded.response!.response!.status!.message).toBe(`lua: bad value ${REDACTED} (debug on)`);
    expect('on'.length).toBeLessThan(MIN_EMBEDDED_SECRET_LENGTH);
    expect(recorded.redacted).toContain('/response/response/status/message');
  });

  it('copies elsewhere in the request objects go too, the envelope fields stay', () => {
    const observed = object();
    (observed.spec.template.spec.containers[0] as Record<string, unknown>).args = ['--password', 'hunter2-pw'];
    const recorded = redactExchange({ request: envelope('Retain', { observedObject: observed }), response: answer({}) });
    expect(JSON.stringify(recorded)).not.toContain('hunter2-pw');
    expect(recorded.request.request).toMatchObject({ uid: 'u1', name: 'web', namespace: 'shop', operation: 'Retain' });
  });
});

describe('replayed requests', () => {
  it('are not recorded', async () => {
    const rec = recorder();
    rec.record(exchangeFor('replayed'), 1, { replayed: true });
    rec.record(exchangeFor('live'), 1);
    await rec.flush();
    expect(rec.counts).toMatchObject({ recorded: 1, replayed: 1 });
    const files = await listExchangeFiles([dir]);
    expect(await Promise.all(files.map(async (f) => (await readExchange(f)).request.request!.uid))).toEqual(['live']);
  });

  it('are recognised by REPLAY_HEADER, which replay --url sends', async () => {
    expect(isReplayedRequest({ [REPLAY_HEADER]: 'true' })).toBe(true);
    expect(isReplayedRequest({ [REPLAY_HEADER]: 'false' })).toBe(false);
    expect(isReplayedRequest({})).toBe(false);

    const certs = await generateSelfSigned();
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
      seen.push(req.headers);
      req.resume();
      req.on('end', () => {
        res.setHeader('Content-Type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: 'config.karmada.io/v1alpha1',
            kind: 'ResourceInterpreterContext',
            response: { uid: 'u', successful: true, healthy: true },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const target = urlTarget(`https://localhost:${port}/interpret`, { ca: certs.caPem, timeoutSeconds: 5 });
    try {
      await target.send({ apiVersion: 'config.karmada.io/v1alpha1', kind: 'ResourceInterpreterContext', request: exchangeFor('u').request });
    } finally {
      target.close();
      await new Promise((resolve) => server.close(resolve));
    }
    expect(seen).toHaveLength(1);
    expect(isReplayedRequest(seen[0]!)).toBe(true);
    expect(seen[0]!['user-agent']).toBe('kube-apiserver-admission');
  });
});
