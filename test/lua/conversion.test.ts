// Golden tests for ConvertLuaResultInto (spec §5.5): gopher-json encoding, empty-table repair per
// operation, typed decoding, and the errors Karmada raises.
import { afterAll, describe, expect, it } from 'vitest';
import { LuaRuntime, LuaScriptError } from '../../src/lua/runtime.ts';
import { reflectScript, workload } from './helpers.ts';

const rt = new LuaRuntime();
afterAll(() => rt.close());

const reflect = (body: string) => rt.call('InterpretStatus', reflectScript(body), [workload()]);

async function reflectError(body: string): Promise<LuaScriptError> {
  const err = await reflect(body).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LuaScriptError);
  return err as LuaScriptError;
}

describe('empty tables without references (ReflectStatus, AggregateStatus, GetReplicas, ...)', () => {
  it('deletes every empty table below the root, at any depth, and inside arrays', async () => {
    expect(await reflect(`return { a = {}, b = { c = {} , d = 1 }, list = { {}, { x = 1 }, {} }, keep = { "x" } }`)).toEqual({
      b: { d: 1 },
      list: [{ x: 1 }],
      keep: ['x'],
    });
  });

  it('keeps a parent emptied by deletions as {} (one pass on the original encoding)', async () => {
    expect(await reflect(`return { status = { conditions = {}, replicaStatuses = {} } }`)).toEqual({ status: {} });
  });

  it('keeps an array emptied by deletions as []', async () => {
    expect(await reflect(`return { items = { {}, {} } }`)).toEqual({ items: [] });
  });

  it('turns a whole empty result into {} for struct targets and [] for list targets', async () => {
    expect(await reflect(`return {}`)).toEqual({});
    expect(await rt.call('InterpretDependency', `function GetDependencies(o) return {} end`, [workload()])).toEqual([]);
    expect(await rt.call('InterpretComponent', `function GetComponents(o) return {} end`, [workload()])).toEqual([]);
  });

  it('deletes empty values the input had, because AggregateStatus uses no references', async () => {
    const out = await rt.call('AggregateStatus', `function AggregateStatus(obj, items) return obj end`, [workload(), []]);
    expect(out.metadata.annotations).toBeUndefined();
    expect(out.spec.updateStrategy).toBeUndefined();
    expect(out.spec.template.spec.tolerations).toBeUndefined();
    expect(out.status.conditions).toBeUndefined();
    expect(out.metadata.labels).toEqual({ app: 'sample' });
  });

  it('drops nodeClaim = {} from GetReplicas requirements (FlinkDeployment case)', async () => {
    const script = `function GetReplicas(obj) return 2, { nodeClaim = {}, resourceRequest = { cpu = "1" } } end`;
    expect(await rt.call('InterpretReplica', script, [workload()])).toEqual({ replicas: 2, requirements: { resourceRequest: { cpu: '1' } } });
  });
});

describe('empty tables repaired against references', () => {
  it('ReviseReplica: restores {} and [] by index-free path from the input object, deletes new ones', async () => {
    const obj = workload();
    obj.spec.template.spec.containers[0].env = [];
    obj.spec.template.spec.containers[0].securityContext = {};
    const out = await rt.call(
      'ReviseReplica',
      `function ReviseReplica(obj, replicas)
         obj.spec.replicas = replicas
         obj.spec.added = {}
         obj.spec.template.spec.containers[2] = { name = "side", env = {}, securityContext = {} }
         return obj
       end`,
      [obj, 5],
    );
    expect(out.spec.replicas).toBe(5);
    expect(out.metadata.annotations).toEqual({});
    expect(out.spec.updateStrategy).toEqual({});
    expect(out.spec.template.spec.tolerations).toEqual([]);
    expect(out.status.conditions).toEqual([]);
    expect('added' in out.spec).toBe(false);
    // Paths ignore array indices, so the new container's empties are repaired like the first one's.
    expect(out.spec.template.spec.containers[1]).toEqual({ name: 'side', env: [], securityContext: {} });
  });

  it('Retain: uses both desired and observed as references', async () => {
    const desired = workload();
    const observed = workload({ status: { observedGeneration: 1, extra: {} } });
    const out = await rt.call(
      'Retain',
      `function Retain(desired, observed)
         desired.status = { extra = {}, other = {} }
         return desired
       end`,
      [desired, observed],
    );
    expect(out.status).toEqual({ extra: {} });
    expect(out.spec.updateStrategy).toEqual({});
  });

  it('handles keys containing "." and ":" as single path segments', async () => {
    const obj = workload();
    obj.metadata.annotations = { 'example.com/config': {}, 'a:b': [] };
    const out = await rt.call(
      'ReviseReplica',
      `function ReviseReplica(obj, r)
         obj.metadata.annotations["example.com/other"] = {}
         return obj
       end`,
      [obj, 1],
    );
    expect(out.metadata.annotations).toEqual({ 'example.com/config': {}, 'a:b': [] });
  });
});

describe('gopher-json encoding', () => {
  it('writes integral floats as integers and keeps fractions', async () => {
    const out = await reflect(`return { a = 3, b = 6 / 2, c = 0.5, d = 1e15, e = 2^53, f = -0.25, g = observedObj.spec.replicas }`);
    expect(JSON.stringify(out)).toBe('{"a":3,"b":3,"c":0.5,"d":1000000000000000,"e":9007199254740992,"f":-0.25,"g":3}');
  });

  it('sorts object keys as Go does when marshalling a map', async () => {
    expect(Object.keys(await reflect(`return { zeta = 1, alpha = 2, Beta = 3 }`))).toEqual(['Beta', 'alpha', 'zeta']);
  });

  it('keeps dotted and colon keys verbatim', async () => {
    expect(await reflect(`return { ["app.kubernetes.io/name"] = "x", ["a:b"] = { ["c.d"] = 1 } }`)).toEqual({
      'app.kubernetes.io/name': 'x',
      'a:b': { 'c.d': 1 },
    });
  });

  it('rejects a sparse array', async () => {
    const err = await reflectError(`local t = {}; t[1] = "a"; t[3] = "c"; return { list = t }`);
    expect(err.luaMessage).toContain('cannot encode sparse array');
    expect(err.functionName).toBe('ReflectStatus');
  });

  it('accepts an array filled out of order (keys are 1..n)', async () => {
    expect(await reflect(`local t = {}; t[2] = "b"; t[1] = "a"; return { list = t }`)).toEqual({ list: ['a', 'b'] });
  });

  it('rejects mixed keys and non-string keys', async () => {
    expect((await reflectError(`return { list = { "a", b = 1 } }`)).luaMessage).toContain('cannot encode mixed or invalid key types');
    expect((await reflectError(`return { list = { [true] = 1 } }`)).luaMessage).toContain('cannot encode mixed or invalid key types');
  });

  it('rejects the same table referenced twice, even without a cycle', async () => {
    const err = await reflectError(`local shared = { x = 1 }; return { a = shared, b = shared }`);
    expect(err.luaMessage).toContain('cannot encode recursively nested tables to JSON');
  });

  it('rejects NaN, infinities and functions', async () => {
    expect((await reflectError(`return { x = 0/0 }`)).luaMessage).toContain('unsupported value: NaN');
    expect((await reflectError(`return { x = 1/0 }`)).luaMessage).toContain('unsupported value: +Inf');
    expect((await reflectError(`return { x = print }`)).luaMessage).toContain('cannot encode function to JSON');
  });

  it('passes math.huge (max float64, not Inf) through', async () => {
    expect(await reflect(`return { x = math.huge }`)).toEqual({ x: Number.MAX_VALUE });
  });
});

describe('JSON -> Lua', () => {
  it('turns null into nil: keys vanish and array elements shift down', async () => {
    const obj = workload({ extra: { gone: null, list: ['a', null, 'c'] } });
    const out = await rt.call(
      'InterpretStatus',
      reflectScript(`return { gone = observedObj.extra.gone == nil, n = #observedObj.extra.list, second = observedObj.extra.list[2] }`),
      [obj],
    );
    expect(out).toEqual({ gone: true, n: 2, second: 'c' });
  });

  it('pushes JSON numbers as floats, without 32-bit integer wrap', async () => {
    const obj = workload({ big: 4294967296, small: 2147483647 });
    const out = await rt.call(
      'InterpretStatus',
      reflectScript(`return { sum = observedObj.small + 1, big = observedObj.big * 2, text = tostring(observedObj.big) }`),
      [obj],
    );
    expect(out).toEqual({ sum: 2147483648, big: 8589934592, text: '4294967296' });
  });

  it('gives statusItems nil without aggregatedStatus and {} for an empty list', async () => {
    const script = `function AggregateStatus(obj, items)
      obj.status = { isNil = items == nil, count = items ~= nil and #items or -1 }
      return obj
    end`;
    expect((await rt.call('AggregateStatus', script, [workload(), undefined])).status).toEqual({ isNil: true, count: -1 });
    expect((await rt.call('AggregateStatus', script, [workload(), []])).status).toEqual({ isNil: false, count: 0 });
    const items = [{ clusterName: 'member1', status: { readyReplicas: 2 }, applied: true, health: 'Healthy' }];
    expect((await rt.call('AggregateStatus', script, [workload(), items])).status).toEqual({ isNil: false, count: 1 });
  });

  it('passes status items as Go marshals them (omitempty fields absent)', async () => {
    const script = `function AggregateStatus(obj, items)
      local i = items[1]
      obj.status = { applied = i.applied == nil, message = i.appliedMessage == nil, health = i.health == nil, status = i.status == nil, name = i.clusterName }
      return obj
    end`;
    const out = await rt.call('AggregateStatus', script, [workload(), [{ clusterName: 'member2', applied: false, appliedMessage: '', health: '' }]]);
    expect(out.status).toEqual({ applied: true, message: true, health: true, status: true, name: 'member2' });
  });
});

describe('typed results', () => {
  it('GetReplicas truncates a fractional replica count to int32 and requires a number', async () => {
    expect((await rt.call('InterpretReplica', `function GetReplicas(o) return 2.7 end`, [workload()])).replicas).toBe(2);
    expect((await rt.call('InterpretReplica', `function GetReplicas(o) return -2.7 end`, [workload()])).replicas).toBe(-2);
    await expect(rt.call('InterpretReplica', `function GetReplicas(o) return "3" end`, [workload()])).rejects.toThrow(/is not number/);
  });

  it('GetReplicas rejects a non-table requirement', async () => {
    await expect(rt.call('InterpretReplica', `function GetReplicas(o) return 1, "x" end`, [workload()])).rejects.toThrow(
      /expect the returned requires type is table but got string/,
    );
  });

  it('matches typed field names case-insensitively and ignores unknown fields', async () => {
    const deps = await rt.call(
      'InterpretDependency',
      `function GetDependencies(o) return { { APIVersion = "v1", KIND = "ConfigMap", Name = "cm", Namespace = "default", unknown = 1 } } end`,
      [workload()],
    );
    expect(deps).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', namespace: 'default' }]);
  });

  it('canonicalises quantities and accepts numbers for them', async () => {
    const out = await rt.call(
      'InterpretReplica',
      `function GetReplicas(o) return 1, { resourceRequest = { cpu = "1000m", memory = 1073741824, gpu = 0.5 } } end`,
      [workload()],
    );
    expect(out.requirements).toEqual({ resourceRequest: { cpu: '1', memory: '1073741824', gpu: '500m' } });
  });

  it('rejects fractional component replicas like encoding/json into int32', async () => {
    await expect(rt.call('InterpretComponent', `function GetComponents(o) return { { name = "a", replicas = 2.5 } } end`, [workload()])).rejects.toThrow(
      /cannot unmarshal number 2.5 into Go struct field Component.replicas of type int32/,
    );
  });

  it('returns [] for a nil component list but errors on nil dependencies', async () => {
    expect(await rt.call('InterpretComponent', `function GetComponents(o) return nil end`, [workload()])).toEqual([]);
    await expect(rt.call('InterpretDependency', `function GetDependencies(o) return nil end`, [workload()])).rejects.toThrow(/table but got nil/);
  });

  it('requires a boolean from InterpretHealth (nil is an error)', async () => {
    expect(await rt.call('InterpretHealth', `function InterpretHealth(o) return o.status.readyReplicas == 2 end`, [workload()])).toBe(true);
    await expect(rt.call('InterpretHealth', `function InterpretHealth(o) if false then return true end end`, [workload()])).rejects.toThrow(
      /result type nil is not bool/,
    );
  });

  it("requires 'kind' on returned objects", async () => {
    await expect(rt.call('Retain', `function Retain(d, o) d.kind = nil return d end`, [workload(), workload()])).rejects.toThrow(/Object 'Kind' is missing/);
    await expect(rt.call('AggregateStatus', `function AggregateStatus(o, i) return { status = {} } end`, [workload(), undefined])).rejects.toThrow(
      /Object 'Kind' is missing/,
    );
  });

  it('quotes at most 2 KiB of a result without kind in its message (Karmada quotes all of it), so all of the message fits in an answer', async () => {
    const big = workload({ metadata: { name: 'w', annotations: { a: 'x'.repeat(100_000) } } });
    const error = (await rt.call('Retain', `function Retain(d, o) d.kind = nil return d end`, [big, big]).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/Object 'Kind' is missing in '\{"apiVersion".*\.\.\. \(\d+ characters, cut\)'$/s);
    expect(error.message.length).toBeLessThan(2200);
  });

  it('requires table results where Karmada does', async () => {
    await expect(rt.call('InterpretStatus', reflectScript('return nil'), [workload()])).rejects.toThrow(/but got nil/);
    await expect(rt.call('ReviseReplica', `function ReviseReplica(o, r) return 1 end`, [workload(), 1])).rejects.toThrow(/but got number/);
  });
});
