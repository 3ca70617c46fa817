// Property: for any original object and any object a module returns, applying our decoded patch to
// request.object exactly as sent yields the module's result (keys with '/' and '~' included).
import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { Registry } from '../../src/interpreter/registry.ts';
import type { KObject } from '../../src/interpreter/types.ts';
import { applyPatch, decodePatch } from '../../src/protocol/patch.ts';
import { buildApp } from '../../src/server/app.ts';
import { karmadaRequest } from '../support/workload-module.ts';

const key = fc.oneof(fc.constantFrom('a', 'b', 'a/b', '~0', 'x~1y', '~', '/', 'spec', 'metadata', '', '0', '-'), fc.string({ maxLength: 6 }));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
    fc.string({ maxLength: 8 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }).map((d) => ({ ...d })),
  ),
})).value;
const body = fc.dictionary(
  key.filter((k) => k !== 'kind' && k !== 'apiVersion'),
  json,
  { maxKeys: 5 },
);

describe('JSON Patch encoding', () => {
  it('applying the decoded patch to request.object gives the module result', async () => {
    let next: KObject = {};
    const registry = new Registry({
      'builtin-ts': [{ targets: [{ apiVersion: 'p.example.io/v1', kind: 'P' }], reviseReplica: () => structuredClone(next) }],
    });
    const app = buildApp({ registry, logger: pino({ level: 'silent' }) });
    await fc.assert(
      fc.asyncProperty(body, body, async (before, after) => {
        const original = { apiVersion: 'p.example.io/v1', kind: 'P', metadata: { name: 'p' }, ...before };
        next = { apiVersion: 'p.example.io/v1', kind: 'P', metadata: { name: 'p' }, ...after };
        const req = karmadaRequest('ReviseReplica', original, { replicas: 1 });
        const reply = await app.inject({ method: 'POST', url: '/interpret', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(req) });
        const response = JSON.parse(reply.body).response;
        expect(response.successful).toBe(true);
        const sent = JSON.parse(JSON.stringify(original));
        const result = response.patch ? applyPatch(sent, decodePatch(response.patch)) : sent;
        expect(result).toEqual(JSON.parse(JSON.stringify(next)));
        if (!response.patch) expect(response.patchType).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });
});
