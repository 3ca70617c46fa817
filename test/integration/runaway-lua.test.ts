// A user customization whose scripts never end (`while true do end`), called in parallel with normal
// traffic over HTTPS: each runaway call is stopped at the Lua deadline and answered as a 500 naming
// the customization and the timeout (after three in a row, at once by its circuit breaker), while the normal requests (TypeScript and Lua kinds) keep
// succeeding within their own deadline: runaway calls hold worker threads, never the event loop, and
// queued calls are taken in turn across customizations.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/interpreter/setup.ts';
import { startLocalServer } from '../../src/server/local.ts';
import { send } from '../support/spawned-server.ts';
import { expectWellFormed } from '../reliability/envelope-check.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const LUA_TIMEOUT_MS = 200;
const NORMAL_DEADLINE_MS = 3000;
const LOAD_MS = 3000;

const RUNAWAY = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: runaway-spinner
spec:
  target:
    apiVersion: example.io/v1
    kind: Spinner
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          while true do end
        end
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          local n = 0
          while true do n = n + 1 end
          return n, nil
        end
`;

function envelope(operation: string, object: Record<string, any>, uid: string) {
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', object.apiVersion];
  return {
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterContext',
    request: {
      uid,
      kind: { group, version, kind: object.kind },
      name: object.metadata.name,
      namespace: object.metadata.namespace,
      operation,
      object,
      replicas: 0,
    },
  };
}
const spinner = { apiVersion: 'example.io/v1', kind: 'Spinner', metadata: { name: 'spin', namespace: 'default' }, spec: { replicas: 1 }, status: {} };
const scaledObject = {
  apiVersion: 'keda.sh/v1alpha1',
  kind: 'ScaledObject',
  metadata: { name: 'orders', namespace: 'shop' },
  spec: { scaleTargetRef: { name: 'orders' } },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
};

describe('runaway Lua scripts under load', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('are stopped at the deadline while normal requests keep succeeding within theirs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kiw-runaway-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'spinner.yaml'), RUNAWAY);
    // examples: the KEDA ScaledObject requests below are answered by the shipped example.
    const loaded = await createRegistry({ customizations: [dir], luaTimeoutMs: LUA_TIMEOUT_MS, examples: 'all' });
    cleanup.push(() => loaded.close());
    expect(loaded.problems).toEqual([]);
    await loaded.untrusted.start();
    const server = await startLocalServer(loaded.registry);
    cleanup.push(() => server.close());
    const target = { port: server.port, ca: server.ca };
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    cleanup.push(() => agent.destroy());

    const cloneSet = readFileSync(join(ROOT, 'examples/requests/cloneset-revisereplica.json'), 'utf8');
    const end = performance.now() + LOAD_MS;
    const runaway: Array<{ code?: number; message?: string }> = [];
    const normal: Array<{ ms: number; ok: boolean; what: string }> = [];
    let n = 0;

    const attacker = async (operation: string) => {
      while (performance.now() < end) {
        const sent = envelope(operation, spinner, `runaway-${n++}`);
        const answer = await send(target, { path: '/interpret?timeout=10s', body: JSON.stringify(sent), agent });
        const response = expectWellFormed(answer.status, answer.body, sent).response!;
        runaway.push({ code: response.status?.code, message: response.status?.message });
        // Answered at once by the open circuit: call again after a while, as Karmada's controllers do.
        if (response.status?.message?.includes('circuit breaker')) await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const worker = async (what: string, body: () => string) => {
      while (performance.now() < end) {
        const sent = body();
        const started = performance.now();
        const answer = await send(target, { path: `/interpret?timeout=${NORMAL_DEADLINE_MS / 1000}s`, body: sent, agent });
        const ms = performance.now() - started;
        normal.push({ ms, ok: expectWellFormed(answer.status, answer.body, JSON.parse(sent)).response!.successful, what });
      }
    };
    await Promise.all([
      attacker('InterpretHealth'),
      attacker('InterpretReplica'),
      worker('cloneset', () => cloneSet),
      worker('cloneset', () => cloneSet),
      worker('lua', () => JSON.stringify(envelope('InterpretHealth', scaledObject, `keda-${n++}`))),
      worker('lua', () => JSON.stringify(envelope('InterpretStatus', scaledObject, `keda-${n++}`))),
    ]);

    // Every runaway call was stopped and said so, or, once three in a row were, answered at once by the
    // customization's circuit breaker (worker-pool.ts), naming them.
    const stopped = runaway.filter((r) => !r.message?.includes('circuit breaker'));
    expect(stopped.length).toBeGreaterThanOrEqual(3);
    for (const r of runaway) {
      expect(r.code).toBe(500);
      expect(r.message).toMatch(/runaway-spinner/);
    }
    for (const r of stopped) expect(r.message).toMatch(new RegExp(`timed out after ${LUA_TIMEOUT_MS}ms`));
    for (const r of runaway.filter((r) => !stopped.includes(r))) expect(r.message).toMatch(/not run \(circuit breaker\): its last \d+ calls timed out/);
    // Normal traffic of both kinds kept flowing, every request succeeded within its deadline.
    expect(normal.filter((r) => r.what === 'cloneset').length).toBeGreaterThan(5);
    expect(normal.filter((r) => r.what === 'lua').length).toBeGreaterThan(5);
    expect(normal.filter((r) => !r.ok)).toEqual([]);
    const slowest = Math.max(...normal.map((r) => r.ms));
    expect(slowest).toBeLessThan(NORMAL_DEADLINE_MS);

    // Each one is counted as a Lua timeout for its kind and operation.
    const metrics = (await server.app.inject('/metrics')).body;
    const timeouts = [...metrics.matchAll(/karmada_interpreter_lua_timeouts_total\{kind="([^"]+)",operation="([^"]+)"\} (\d+)/g)];
    expect(timeouts.reduce((sum, m) => sum + Number(m[3]), 0)).toBe(stopped.length);
    expect(timeouts.map((m) => m[2]).sort()).toEqual(['InterpretHealth', 'InterpretReplica']);

    // The Lua states that were interrupted are usable again: the same kind answers after the storm.
    const after = envelope('InterpretHealth', scaledObject, 'after');
    const answer = await send(target, { path: '/interpret', body: JSON.stringify(after), agent });
    expect(expectWellFormed(answer.status, answer.body, after).response).toMatchObject({ successful: true, healthy: true });
  }, 60000);
});
