// Dense bodies against the real server process (issue 33, item 2), run with attack-harness.ts: bodies
// within the byte limit whose values or keys cost far more than their bytes suggest. Each is refused with
// a 400 naming the bound, counted as its bytes arrive, while the probes beside it stay under 300 ms and
// the server's memory under 1 GB. README.md ("Reliability") lists them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_VALUES, MAX_OBJECT_KEYS } from '../../src/server/body-shape.ts';
import { expectWellFormed } from '../reliability/envelope-check.ts';
import { send, spawnServer, type SpawnedServer } from '../support/spawned-server.ts';
import { beside, example, GRACE_MS, sleep } from './attack-harness.ts';

/** Karmada's ?timeout= for these calls; every answer must come within it (plus the harness's grace). */
const DEADLINE_MS = 10_000;

/** Sends one envelope (already JSON text) with the deadline; the envelope and how long it took. */
async function interpretText(server: SpawnedServer, text: string, sent: unknown) {
  const started = performance.now();
  const answer = await send(server, { path: `/interpret?timeout=${DEADLINE_MS / 1000}s`, body: text });
  return { context: expectWellFormed(answer.status, answer.body, sent), ms: performance.now() - started };
}

/** A CloneSet Retain whose desired object carries `keys` keys in one object, as the red team sent it. */
function denseRetain(keys: number) {
  const envelope = example('cloneset-revisereplica');
  envelope.request.operation = 'Retain';
  const observed = structuredClone(envelope.request.object);
  const labels: Record<string, number> = {};
  for (let i = 0; i < keys; i++) labels[`k${i}`] = 0;
  envelope.request.object.spec.template.metadata = { ...envelope.request.object.spec.template.metadata, labels };
  envelope.request.observedObject = observed;
  return envelope;
}

/** A CloneSet Retain whose desired object carries an array of `count` empty objects. */
function emptyObjects(count: number) {
  const envelope = example('cloneset-revisereplica');
  envelope.request.operation = 'Retain';
  envelope.request.observedObject = structuredClone(envelope.request.object);
  envelope.request.object.spec.x = Array.from({ length: count }, () => ({}));
  return envelope;
}

/** A CloneSet InterpretHealth of about `mebibytes` MiB, its object's labels packed with keys. */
function denseHealth(mebibytes: number) {
  const envelope = example('cloneset-interpretreplica');
  envelope.request.operation = 'InterpretHealth';
  const labels: Record<string, number> = {};
  const keys = Math.floor((mebibytes * 1024 * 1024) / 12);
  for (let i = 0; i < keys; i++) labels[`k${i}`] = 0;
  envelope.request.object.metadata.labels = labels;
  return envelope;
}

/**
 * A CloneSet Retain just within the value and key bounds: objects of MAX_OBJECT_KEYS - 1 unique keys,
 * MAX_BODY_VALUES - 10,000 values in all; about 1.2 MiB, or with `keyPadding` characters added to each key,
 * up to the body limit.
 */
function retainAtTheBounds(keyPadding = 0) {
  const pad = 'p'.repeat(keyPadding);
  const envelope = example('cloneset-revisereplica');
  envelope.request.operation = 'Retain';
  envelope.request.observedObject = structuredClone(envelope.request.object);
  const groups: Record<string, Record<string, number>> = {};
  const perGroup = MAX_OBJECT_KEYS - 1;
  for (let g = 0; g < Math.floor((MAX_BODY_VALUES - 10_000) / perGroup); g++) {
    const group: Record<string, number> = {};
    for (let i = 0; i < perGroup; i++) group[`k${g}-${i}${pad}`] = i;
    groups[`g${g}`] = group;
  }
  envelope.request.object.spec.extra = groups;
  return envelope;
}

describe('dense bodies against the real server', () => {
  let server: SpawnedServer;
  beforeAll(async () => {
    server = await spawnServer([]);
    for (let i = 0; i < 100 && (await send(server, { path: '/readyz' })).status !== 200; i++) await sleep(50);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('four 8 MiB CloneSet Retains with 700,000 keys in one object at once: each refused naming the bound', async () => {
    const envelope = denseRetain(700_000);
    const text = JSON.stringify(envelope);
    expect(text.length).toBeGreaterThan(7.5 * 1024 * 1024);
    const answers = await beside(server, () => Promise.all([1, 2, 3, 4].map(() => interpretText(server, text, envelope))));
    for (const { context, ms } of answers) {
      expect(context.response).toMatchObject({ successful: false, status: { code: 400 } });
      expect(context.response!.status!.message).toContain(`more than ${MAX_OBJECT_KEYS} keys`);
      expect(ms).toBeLessThan(DEADLINE_MS + GRACE_MS);
    }
  }, 120_000);

  it('four requests of 1.4 million empty objects at once: each refused naming the bound, memory bounded', async () => {
    const envelope = emptyObjects(1_400_000);
    const text = JSON.stringify(envelope);
    const answers = await beside(server, () => Promise.all([1, 2, 3, 4].map(() => interpretText(server, text, envelope))));
    for (const { context, ms } of answers) {
      expect(context.response).toMatchObject({ successful: false, status: { code: 400 } });
      expect(context.response!.status!.message).toContain(`more than ${MAX_BODY_VALUES} JSON values`);
      expect(ms).toBeLessThan(DEADLINE_MS + GRACE_MS);
    }
  }, 120_000);

  it('a 4 MiB InterpretHealth packed with keys: refused naming the bound', async () => {
    const envelope = denseHealth(4);
    const { context, ms } = await beside(server, () => interpretText(server, JSON.stringify(envelope), envelope));
    expect(context.response).toMatchObject({ successful: false, status: { code: 400 } });
    expect(context.response!.status!.message).toMatch(/more than \d+ (keys|JSON values)/);
    expect(ms).toBeLessThan(DEADLINE_MS + GRACE_MS);
  }, 60_000);

  it('four Retains just within the value and key bounds at once are answered, the probes beside them served', async () => {
    const envelope = retainAtTheBounds();
    const text = JSON.stringify(envelope);
    const answers = await beside(server, () => Promise.all([1, 2, 3, 4].map(() => interpretText(server, text, envelope))));
    for (const { context, ms } of answers) {
      expect(context.response).toMatchObject({ successful: true });
      expect(ms).toBeLessThan(DEADLINE_MS + GRACE_MS);
    }
  }, 120_000);
  it('the worst body of the allowed size, 8 MiB at every bound, four at once: answered, its parse, interpretation and patch taking turns with the probes', async () => {
    const envelope = retainAtTheBounds(83);
    const text = JSON.stringify(envelope);
    expect(text.length).toBeGreaterThan(7.5 * 1024 * 1024);
    expect(text.length).toBeLessThan(8 * 1024 * 1024);
    const answers = await beside(server, () => Promise.all([1, 2, 3, 4].map(() => interpretText(server, text, envelope))));
    for (const { context, ms } of answers) {
      expect(context.response).toMatchObject({ successful: true });
      expect(ms).toBeLessThan(DEADLINE_MS + GRACE_MS);
    }
  }, 120_000);
});
