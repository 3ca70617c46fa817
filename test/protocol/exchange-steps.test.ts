// A large request's synchronous work is spread over steps the server schedules one per event-loop turn
// (src/server/one-per-turn.ts): the parse, the interpretation and the patch each run as their own step.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cloneSet } from '../../interpreters/apps.kruise.io/v1alpha1/CloneSet/index.ts';
import { Registry } from '../../src/interpreter/registry.ts';
import { handleExchange, MAX_NESTING_DEPTH } from '../../src/protocol/exchange.ts';

const registry = new Registry({ 'builtin-ts': [cloneSet] });
const envelope = JSON.parse(readFileSync(new URL('../../examples/requests/cloneset-interpretreplica.json', import.meta.url), 'utf8'));

function request(operation: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...envelope, request: { ...envelope.request, operation, ...extra } });
}

/** A step runner that records the order of steps and what ran in each. */
function recorder() {
  const log: string[] = [];
  let n = 0;
  const step = async <T>(work: () => T): Promise<T> => {
    const index = ++n;
    await new Promise((resolve) => setImmediate(resolve));
    log.push(`step ${index} starts`);
    const result = work();
    log.push(`step ${index} returns`);
    return result;
  };
  return { log, step };
}

describe('handleExchange steps', () => {
  it('interprets in one step and builds the patch in another', async () => {
    const { log, step } = recorder();
    const exchange = await handleExchange(registry, { body: request('ReviseReplica', { desiredReplicas: 2 }), contentType: 'application/json' }, { step });
    expect(exchange.response.response).toMatchObject({ successful: true, patchType: 'JSONPatch' });
    // Step 2 (the patch) is queued by step 1 and runs only after step 1 returned.
    expect(log).toEqual(['step 1 starts', 'step 1 returns', 'step 2 starts', 'step 2 returns']);
  });

  it('answers the same with steps as without', async () => {
    const body = request('ReviseReplica', { desiredReplicas: 3 });
    const plain = await handleExchange(registry, { body, contentType: 'application/json' });
    const stepped = await handleExchange(registry, { body, contentType: 'application/json' }, { step: recorder().step });
    expect(stepped.response).toEqual(plain.response);
  });

  it('walks the parsed value for nesting unless the bytes were already bounded', async () => {
    let deep: unknown = 1;
    for (let i = 0; i <= MAX_NESTING_DEPTH; i++) deep = [deep];
    const body = request('InterpretReplica', { object: { ...envelope.request.object, spec: { ...envelope.request.object.spec, deep } } });
    const walked = await handleExchange(registry, { body, contentType: 'application/json' });
    expect(walked.response.response?.status?.message).toMatch(/nests deeper than 1000/);
    const trusted = await handleExchange(registry, { body, contentType: 'application/json' }, { nestingChecked: true });
    expect(trusted.response.response?.status?.message ?? '').not.toMatch(/nests deeper/);
  });
});
