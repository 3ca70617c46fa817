// Targeted cases for lazy argument conversion: everything a script or library function can do with a
// table converted lazily gives what the eager reference gives (pair.same asserts that), and the value
// each case expects.
import { afterAll, describe, expect, it } from 'vitest';
import type { KObject } from '../../src/interpreter/types.ts';
import { LazyEagerPair, type Outcome } from './lazy-compare.ts';

const pair = new LazyEagerPair();
afterAll(() => pair.close());

const obj = (extra: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'v1',
  kind: 'Thing',
  metadata: { name: 'a', namespace: 'ns', labels: { z: '1', a: '2', m: '3' }, annotations: {} },
  spec: {
    replicas: 3,
    list: [{ name: 'x', n: 2 }, null, { name: 'y', n: 1 }, null, { name: 'w', n: 3 }],
    words: ['b', 'a', 'c'],
    empty: [],
    nested: { deeper: { value: 1.5 } },
    none: null,
  },
  ...extra,
});

/** A ReflectStatus body; returns what it returns (a JSON object). */
const reflect = (body: string, input: KObject = obj()) => pair.same('statusReflection', `function ReflectStatus(o)\n${body}\nend`, { object: input });
/** A ReviseReplica body: `o` is returned to be encoded (with the input as the empty-table reference). */
const revise = (body: string, input: KObject = obj()) =>
  pair.same('replicaRevision', `function ReviseReplica(o, r)\n${body}\nreturn o\nend`, { object: input, replicas: 1 });

function value(outcome: Outcome): unknown {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.error.message}`);
  return outcome.value;
}
function error(outcome: Outcome): string {
  if (outcome.ok) throw new Error(`expected an error, got ${outcome.json}`);
  return outcome.error.message;
}

describe('lazy tables seen whole', () => {
  // A key deleted and set again keeps its first place, as in gopher-lua's key list (table.go RawSetString).
  it('pairs walks keys in the eager order, including keys added and re-added by the script', async () => {
    const out = await reflect(`
      local m = o.metadata.labels
      local _ = m.m
      m.new = "4"
      m.a = nil
      m.a = "again"
      local keys = {}
      for k, v in pairs(m) do table.insert(keys, k .. "=" .. v) end
      for k in pairs(o) do table.insert(keys, k) end
      return { keys = table.concat(keys, ",") }`);
    expect(value(out)).toEqual({ keys: 'z=1,a=again,m=3,new=4,apiVersion,kind,metadata,spec' });
  });

  it('next, # and table.maxn on objects and arrays', async () => {
    const out = await reflect(`
      local k1 = next(o.metadata)
      local k2 = next(o.metadata, k1)
      local spec = o.spec
      spec[1] = "one"; spec[2] = "two"; spec[4] = "four"
      return { k1 = k1, k2 = k2, objlen = #o.metadata, speclen = #spec, listlen = #spec.list, maxn = table.maxn(o.spec), getn = table.getn(o.spec.words), untouchedlen = #o.spec.nested }`);
    // speclen: fengari's border search starts at the table's size + 1, so the string keys the eager
    // table holds matter (a table holding only 1, 2 and 4 gives 2): materialization must rebuild them all.
    expect(value(out)).toEqual({ k1: 'name', k2: 'namespace', objlen: 0, speclen: 4, listlen: 3, maxn: 4, getn: 3, untouchedlen: 0 });
  });

  it('ipairs, table.insert/remove/sort/concat and unpack', async () => {
    const out = await reflect(`
      local names = {}
      for i, item in ipairs(o.spec.list) do names[#names + 1] = i .. item.name end
      local count = 0
      for _ in ipairs(o.metadata) do count = count + 1 end
      local list = o.spec.list
      table.sort(list, function(a, b) return a.n < b.n end)
      table.insert(o.spec.words, "d")
      table.insert(o.spec.words, 1, "first")
      local removed = table.remove(o.spec.words, 2)
      local a, b = unpack(o.spec.words)
      table.sort(o.spec.words)
      return { names = table.concat(names, ","), count = count, sorted = list[1].name .. list[2].name .. list[3].name,
        words = table.concat(o.spec.words, "+"), removed = removed, a = a, b = b, n = select("#", unpack(o.spec.list)) }`);
    expect(value(out)).toEqual({ names: '1x,2y,3w', count: 0, sorted: 'yxw', words: 'a+c+d+first', removed: 'b', a: 'first', b: 'a', n: 3 });
  });

  it('table.insert into a lazy object makes it a mixed table (same encoding error)', async () => {
    expect(error(await revise('table.insert(o.metadata, "x")'))).toContain('cannot encode mixed or invalid key types');
  });
});

describe('writes', () => {
  it('nil assignment of a never-read key removes it; writing then reading gives the written value', async () => {
    const out = await revise(`
      o.spec = nil
      o.metadata.labels = nil
      o.status = { phase = "Running" }
      o.status.count = (o.status.count or 0) + 1
      o.metadata.name = o.metadata.name .. "-x"`);
    expect(value(out)).toEqual({
      apiVersion: 'v1',
      kind: 'Thing',
      metadata: { name: 'a-x', namespace: 'ns', annotations: {} },
      status: { phase: 'Running', count: 1 },
    });
  });

  it('a subtable stored in a second place is the same table: "recursively nested" as today, read or not', async () => {
    expect(error(await revise('o.copy = o.spec'))).toContain('cannot encode recursively nested tables to JSON');
    expect(error(await revise('local s = o.spec.nested; s.x = 1; o.copy = s'))).toContain('cannot encode recursively nested tables to JSON');
    // Once (moved, not copied) is fine.
    expect(value(await revise('o.moved = o.spec.nested; o.spec.nested = nil'))).toMatchObject({ moved: { deeper: { value: 1.5 } } });
  });

  it('nil and NaN keys raise the VM error at the script line', async () => {
    const nilKey = await revise('local k\no.metadata[k] = 1');
    expect(error(nilKey)).toContain('table index is nil');
    expect(nilKey.ok ? 0 : nilKey.error.line).toBe(3);
    expect(error(await revise('o.spec[0/0] = 1'))).toContain('table index is NaN');
    expect(error(await revise('local k\no.metadata[k] = nil'))).toContain('table index is nil');
  });

  it('NaN, functions and sparse arrays written by the script are the same encoding errors', async () => {
    expect(error(await revise('o.spec.replicas = 0/0'))).toContain('unsupported value: NaN');
    expect(error(await revise('o.spec.f = print'))).toContain('cannot encode function to JSON');
    expect(error(await revise('o.spec.words[5] = "x"'))).toContain('cannot encode sparse array');
  });
});

describe('values', () => {
  it('arrays with nulls shift, untouched or read', async () => {
    const input = obj({ data: { list: [null, 1, null, 'two', null] } });
    expect(value(await revise('', input))).toMatchObject({ data: { list: [1, 'two'] } });
    expect(value(await reflect('return { n = #o.data.list, second = o.data.list[2] }', input))).toEqual({ n: 2, second: 'two' });
  });

  it('empty objects and arrays round trip as today (deleted without a reference, kept with one)', async () => {
    const input = obj({ data: { emptyObject: {}, emptyArray: [], nested: { inner: {} } } });
    expect(value(await reflect('return o.data', input))).toEqual({ nested: {} });
    expect(value(await reflect('local d = o.data; local _ = d.nested.inner; return d', input))).toEqual({ nested: {} });
    expect(value(await revise('', input))).toMatchObject({ data: { emptyObject: {}, emptyArray: [], nested: { inner: {} } }, spec: { empty: [] } });
    // Retain: references are desired and observed, so metadata.annotations {} is kept there and
    // deleted under status (no reference has status.annotations).
    const retained = await pair.same('retention', 'function Retain(d, o)\nd.status = o.metadata\nreturn d\nend', { object: input, observed: obj() });
    expect(value(retained)).toMatchObject({ metadata: { annotations: {} }, status: { name: 'a', namespace: 'ns', labels: { a: '2', m: '3', z: '1' } } });
    expect((value(retained) as KObject).status).not.toHaveProperty('annotations');
  });

  it('string keys that look like numbers stay strings; integer keys do not find them', async () => {
    const input = obj({ data: { '1': 'one', '2': 'two', '10': 'ten' } });
    expect(value(await reflect('local d = o.data\nreturn { a = d[1], b = d["1"], n = #d, t = type(d[2]) }', input))).toEqual({ b: 'one', n: 0, t: 'nil' });
    expect(value(await reflect('return o.data', input))).toEqual({ '1': 'one', '10': 'ten', '2': 'two' });
    expect(error(await reflect('local d = o.data\nd[1] = "x"\nreturn d', input))).toContain('mixed or invalid key types');
  });

  it('keys named like metamethods are plain data', async () => {
    const input = obj({ data: { __index: 'i', __newindex: { x: 1 }, __len: 3, __pairs: 'p' } });
    expect(
      value(
        await reflect(
          'local d = o.data\nlocal n = 0\nfor _ in pairs(d) do n = n + 1 end\nreturn { i = d.__index, len = #d, n = n, x = d.__newindex.x }',
          input,
        ),
      ),
    ).toEqual({ i: 'i', len: 0, n: 4, x: 1 });
    expect(value(await reflect('return o.data', input))).toEqual({ __index: 'i', __len: 3, __newindex: { x: 1 }, __pairs: 'p' });
  });

  it('numbers, strings and booleans come back as they went in', async () => {
    // As Karmada's Lua: a leading BOM is kept (Go strings are bytes), a lone surrogate arrives as Go's
    // encoding/json decoded it, one U+FFFD (test/protocol/go-json.test.ts cites Go's source).
    const input = obj({ data: { big: 2 ** 53, neg: -0, frac: 0.1, text: 'é \u2028 "q"', bad: '\ud800x', bom: '\ufeffx', '\ufeffk': 1, t: true, f: false } });
    expect(value(await reflect('return o.data', input))).toEqual({
      bad: '\ufffdx',
      big: 2 ** 53,
      bom: '\ufeffx',
      frac: 0.1,
      f: false,
      '\ufeffk': 1,
      neg: -0,
      t: true,
      text: 'é \u2028 "q"',
    });
    expect(
      value(
        await reflect('local d = o.data\nreturn { big = d.big, neg = d.neg, bad = d.bad, s = tostring(d.big), fffd = d.bad == "\\239\\191\\189x" }', input),
      ),
    ).toEqual({
      big: 2 ** 53,
      neg: -0,
      bad: '\ufffdx',
      s: '9007199254740992',
      fffd: true,
    });
  });

  it('keys that Go decodes alike (lone surrogates, each one U+FFFD) are one key, the later value winning', async () => {
    const input = obj({ data: { '\ud800': 1, a: 2, '\udbff': 3 } });
    const out = await reflect(
      'local n, keys = 0, {}\nfor k, v in pairs(o.data) do n = n + 1; keys[n] = k .. "=" .. v end\ntable.sort(keys)\nreturn { n = n, keys = table.concat(keys, ",") }',
      input,
    );
    expect(value(out)).toEqual({ n: 2, keys: 'a=2,\ufffd=3' });
  });

  it('the kube module reads lazy tables', async () => {
    const input = obj({
      spec: { replicas: 2, template: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }], nodeSelector: { zone: 'a' } } } },
    });
    const out = await pair.same(
      'replicaResource',
      'local kube = require("kube")\nfunction GetReplicas(o)\nreturn o.spec.replicas, kube.accuratePodRequirements(o.spec.template)\nend',
      { object: input },
    );
    expect(value(out)).toEqual({ replicas: 2, requirements: { nodeClaim: { nodeSelector: { zone: 'a' } }, resourceRequest: { cpu: '100m' } } });
  });

  it('type, equality, tostring and string.format of lazy tables behave as for plain ones', async () => {
    const out = await reflect(
      'local s = o.spec\nreturn { t = type(s), same = (s == o.spec), other = (s == o.metadata), str = tostring(s):sub(1, 6), f = string.format("%s", o.metadata):sub(1, 6) }',
    );
    expect(value(out)).toEqual({ t: 'table', same: true, other: false, str: 'table:', f: 'table:' });
  });

  it('the sandbox still refuses raw access and metatables', async () => {
    for (const fn of ['getmetatable(o)', 'setmetatable(o, {})', 'rawget(o, "kind")', 'rawset(o, "kind", 1)', 'rawequal(o, o)']) {
      expect(error(await reflect(`return ${fn}`))).toContain('is not supported');
    }
  });
});

describe('limits', () => {
  it('deep objects: 1,000 levels read and returned; results deeper than Go accepts fail as today', async () => {
    let deep: unknown = { leaf: true };
    for (let i = 0; i < 1000; i++) deep = { d: deep };
    const input = obj({ deep });
    expect(value(await reflect('local t = o.deep\nlocal n = 0\nwhile t.d do t = t.d; n = n + 1 end\nreturn { n = n, leaf = t.leaf }', input))).toEqual({
      n: 1000,
      leaf: true,
    });
    expect(value(await revise('local _ = o.deep.d.d.d', input))).toMatchObject({ deep });
    // Past Go's 10,000 levels, or the JS stack first (then the same error both ways, as before).
    expect(error(await reflect('local t = {}\nlocal r = t\nfor i = 1, 10001 do t.d = {}; t = t.d end\nreturn r'))).toMatch(
      /exceeded max depth|Maximum call stack size exceeded/,
    );
  });

  it('an input too deep for eager conversion (the JS stack) no longer fails a script that does not walk it', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 50_000; i++) deep = { d: deep };
    const input = obj({ deep });
    const eagerError = await pair.eager
      .call('InterpretHealth', 'function InterpretHealth(o) return o.kind == "Thing" end', [input])
      .catch((err: Error) => err.message);
    expect(eagerError).toMatch(/Maximum call stack size exceeded|object too deep|error object/);
    expect(await pair.lazy.call('InterpretHealth', 'function InterpretHealth(o) return o.kind == "Thing" end', [input])).toBe(true);
    // Encoding it back still fails as a script error, not a crash.
    await expect(pair.lazy.call('InterpretStatus', 'function ReflectStatus(o) return o end', [input])).rejects.toThrow(
      /exceeded max depth|Maximum call stack size exceeded/,
    );
  });

  it('the deadline and the memory guard still stop scripts working on lazy tables', async () => {
    const limited = new LazyEagerPair({ timeoutMs: 100, memoryLimitMb: 32 });
    try {
      const timeout = await limited.same('statusReflection', 'function ReflectStatus(o)\nwhile true do local _ = o.spec.replicas end\nend', { object: obj() });
      expect(timeout.ok ? undefined : timeout.error.timeout).toBe(true);
      // Which limit comes first depends on the machine's speed, so each variant is checked on its own.
      const growing = 'function ReflectStatus(o)\nlocal t = {}\nlocal i = 0\nwhile true do i = i + 1; t[i] = { o.metadata.name, i } end\nend';
      for (const variant of [limited.lazy, limited.eager]) {
        await expect(variant.call('InterpretStatus', growing, [obj()])).rejects.toThrow(/memory limit exceeded|timed out/);
      }
    } finally {
      limited.close();
    }
  });
});

describe('kube helper results are lazy tables too', () => {
  const template = {
    metadata: { labels: { app: 'web' } },
    spec: {
      nodeSelector: { zone: 'a', disk: 'ssd' },
      tolerations: [{ key: 'k', operator: 'Exists' }],
      priorityClassName: 'high',
      containers: [{ name: 'c', resources: { requests: { cpu: '250m', memory: '64Mi' } }, envFrom: [{ configMapRef: { name: 'env' } }] }],
      volumes: [
        { name: 'v', secret: { secretName: 's' } },
        { name: 'w', configMap: { name: 'conf' } },
      ],
    },
  };
  const input = obj({ spec: { replicas: 2, template } });

  it('returned untouched, changed, walked and counted as eager conversion gives them', async () => {
    const requirements = (body: string) =>
      pair.same(
        'replicaResource',
        `local kube = require("kube")\nfunction GetReplicas(o)\nlocal r = kube.accuratePodRequirements(o.spec.template)\n${body}\nend`,
        { object: input },
      );
    expect(value(await requirements('return 2, r'))).toMatchObject({ replicas: 2, requirements: { nodeClaim: { nodeSelector: { zone: 'a', disk: 'ssd' } } } });
    value(await requirements('r.namespace = "other"\nr.nodeClaim.tolerations[2] = { key = "x" }\nreturn #r.nodeClaim.tolerations, r'));
    value(
      await requirements(
        'local keys = {}\nfor k in pairs(r.nodeClaim.nodeSelector) do keys[#keys + 1] = k end\nr.priorityClassName = table.concat(keys, ",")\nreturn 1, r',
      ),
    );

    const dependencies = (body: string) =>
      pair.same(
        'dependencyInterpretation',
        `local kube = require("kube")\nfunction GetDependencies(o)\nlocal d = kube.getPodDependencies(o.spec.template, o.metadata.namespace)\n${body}\nend`,
        { object: input },
      );
    expect(value(await dependencies('return d'))).toHaveLength(3);
    value(await dependencies('table.remove(d, 1)\nd[#d + 1] = { apiVersion = "v1", kind = "Secret", namespace = "ns", name = d[1].name }\nreturn d'));
    value(
      await dependencies(
        'local names = {}\nfor i, r in ipairs(d) do names[i] = r.kind .. "/" .. r.name end\nreturn { { apiVersion = "v1", kind = "List", name = table.concat(names, " ") } }',
      ),
    );
    expect(error(await dependencies('return { d[1], d[1] }'))).toMatch(/recursively nested tables/);
  });
});
