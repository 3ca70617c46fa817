// Results without reference objects are encoded and stripped of empty tables in one walk
// (convert.ts encodeLuaValueDroppingEmptyTables); it must give what encoding then repairEmptyTables
// gives: every empty table below the top deleted, judged on the encoding (parents emptied by the
// deletions stay), for Lua-built tables and untouched (lazy) input tables alike, and the same errors.
import { afterAll, describe, expect, it } from 'vitest';
import { LuaRuntime } from '../../src/lua/runtime.ts';

const rt = new LuaRuntime({ poolSize: 1 });
afterAll(() => rt.close());
const reflect = (body: string, input: Record<string, unknown> = { apiVersion: 'v1', kind: 'X' }) =>
  rt.call('InterpretStatus', `function ReflectStatus(o)\n${body}\nend`, [input]);

describe('encoding a result while dropping empty tables', () => {
  it('drops empty Lua tables at any depth and keeps the tables emptied by that', async () => {
    expect(await reflect('return { a = { b = {} }, c = {}, d = { {}, {} }, e = { 1, {}, 2 }, f = { g = { {} } }, s = "", n = 0 }')).toEqual({
      a: {},
      d: [],
      e: [1, 2],
      f: { g: [] },
      s: '',
      n: 0,
    });
  });

  it('drops empty containers of untouched input objects the same way, nulls first', async () => {
    const input = {
      apiVersion: 'v1',
      kind: 'X',
      data: { a: { b: {} }, c: [], d: [[], {}], e: [null, 1, {}], f: { g: null }, h: [{ i: [] }], j: { k: [null] } },
    };
    const expected = { a: {}, d: [], e: [1], h: [{}], j: {} };
    expect(await reflect('return o.data', input)).toEqual(expected);
    // A level touched by the script (materialized) and levels below it that were not.
    expect(await reflect('local d = o.data; local _ = d.a; return d', input)).toEqual(expected);
  });

  it('turns a whole empty result into {} for structs and [] for slices, and keeps encoding errors', async () => {
    expect(await reflect('return {}')).toEqual({});
    expect(await reflect('return o.data', { apiVersion: 'v1', kind: 'X', data: { x: null } })).toEqual({});
    expect(await rt.call('InterpretComponent', 'function GetComponents(o) return {} end', [{ apiVersion: 'v1', kind: 'X' }])).toEqual([]);
    await expect(reflect('return { a = {}, b = 0/0 }')).rejects.toThrow(/unsupported value: NaN/);
    await expect(reflect('local t = {}; return { a = t, b = { t } }')).rejects.toThrow(/recursively nested/);
    await expect(reflect('return { a = {}, [1] = 2 }')).rejects.toThrow(/mixed or invalid key types/);
  });

  it('the kube helpers see pod templates without their empty fields', async () => {
    const input = {
      apiVersion: 'v1',
      kind: 'X',
      spec: {
        template: { metadata: {}, spec: { nodeSelector: {}, tolerations: [], containers: [{ name: 'c', resources: { requests: { cpu: '1' }, limits: {} } }] } },
      },
    };
    const out = await rt.call(
      'InterpretReplica',
      'local kube = require("kube")\nfunction GetReplicas(o) return 1, kube.accuratePodRequirements(o.spec.template) end',
      [input],
    );
    expect(out).toEqual({ replicas: 1, requirements: { resourceRequest: { cpu: '1' } } });
  });
});
