// What the dispatcher copies for the operations that return an object (src/interpreter/dispatch.ts):
// ReviseReplica and Retain a deep copy; AggregateStatus its own status, sharing the rest with the
// request. The request object must come out unchanged either way.
import { describe, expect, it } from 'vitest';
import { interpret } from '../../src/interpreter/dispatch.ts';
import { Registry } from '../../src/interpreter/registry.ts';
import type { KindInterpreter, KObject } from '../../src/interpreter/types.ts';

const seen: Record<string, KObject> = {};
const probe: KindInterpreter = {
  name: 'typescript:probe',
  targets: [{ apiVersion: 'example.io/v1', kind: 'Probe' }],
  reviseReplica(obj, replicas) {
    seen.ReviseReplica = obj;
    (obj.spec as { replicas: number }).replicas = replicas;
    return obj;
  },
  aggregateStatus(obj) {
    seen.AggregateStatus = obj;
    (obj.status as { ready: number }).ready = 3;
    return obj;
  },
  retain(desired) {
    seen.Retain = desired;
    (desired.metadata as { labels: Record<string, string> }).labels.kept = 'yes';
    return desired;
  },
};
const registry = new Registry({ 'builtin-ts': [probe] });

function request(): KObject {
  return {
    apiVersion: 'example.io/v1',
    kind: 'Probe',
    metadata: { name: 'p', labels: { app: 'p' } },
    spec: { replicas: 1, template: { x: 1 } },
    status: { ready: 1 },
  };
}

describe('dispatcher copies', () => {
  it('AggregateStatus gets its own status and shares the rest with the request', async () => {
    const object = request();
    const before = JSON.stringify(object);
    const outcome = await interpret(registry, { apiVersion: 'example.io/v1', kind: 'Probe', operation: 'AggregateStatus', object, aggregatedStatus: [] });
    expect(outcome.ok).toBe(true);
    expect(JSON.stringify(object)).toBe(before);
    expect(seen.AggregateStatus).not.toBe(object);
    expect(seen.AggregateStatus!.status).not.toBe(object.status);
    expect(seen.AggregateStatus!.spec).toBe(object.spec);
    expect(seen.AggregateStatus!.metadata).toBe(object.metadata);
  });

  it.each(['ReviseReplica', 'Retain'] as const)('%s gets a deep copy', async (operation) => {
    const object = request();
    const before = JSON.stringify(object);
    const outcome = await interpret(registry, { apiVersion: 'example.io/v1', kind: 'Probe', operation, object, replicas: 4, observedObject: request() });
    expect(outcome.ok).toBe(true);
    expect(JSON.stringify(object)).toBe(before);
    expect(seen[operation]!.metadata).not.toBe(object.metadata);
    expect(seen[operation]!.spec).not.toBe(object.spec);
  });
});
