// Karmada's sandbox (spec §5.2): what is opened, what raises, and what cannot leak between calls.
import { afterAll, describe, expect, it } from 'vitest';
import { LuaRuntime } from '../../src/lua/runtime.ts';
import { UNSUPPORTED_BASE_FUNCTIONS } from '../../src/lua/sandbox.ts';
import { reflectScript, workload } from './helpers.ts';

const rt = new LuaRuntime();
afterAll(() => rt.close());
const reflect = (body: string) => rt.call('InterpretStatus', reflectScript(body), [workload()]);

describe('libraries', () => {
  it('opens exactly the base functions Karmada keeps', async () => {
    const names = ['assert', 'error', 'ipairs', 'pairs', 'next', 'pcall', 'xpcall', 'print', 'select', 'tonumber', 'tostring', 'type', 'unpack', 'require'];
    const checks = names.map((n) => `${n} = type(${n})`).join(', ');
    const out = await reflect(`return { ${checks} }`);
    for (const name of names) expect(out[name], name).toBe('function');
  });

  it.each(UNSUPPORTED_BASE_FUNCTIONS)('%s raises "not supported"', async (name) => {
    await expect(reflect(`${name}(); return {}`)).rejects.toThrow(`call function ${name} is not supported in karmada customized resourceinterpreter.`);
  });

  it('does not open io, debug, coroutine, utf8, json, channel; leaves no 5.3 extras', async () => {
    const out = await reflect(`return { io = type(io), debug = type(debug), coroutine = type(coroutine), utf8 = type(utf8), json = type(json),
      channel = type(channel), rawlen = type(rawlen), tunpack = type(table.unpack), tpack = type(table.pack), mtype = type(math.type),
      tointeger = type(math.tointeger), spack = type(string.pack) }`);
    expect(Object.values(out).every((v) => v === 'nil')).toBe(true);
  });

  it('keeps only os.time and os.date, with Karmada strftime subset and quirks', async () => {
    const out = await reflect(`local keys = {}; for k in pairs(os) do table.insert(keys, k) end; table.sort(keys)
      local t = os.time({ year = 2024, month = 2, day = 29, hour = 10, min = 30, sec = 15 })
      return { keys = keys, t = t, noon = os.time({ year = 2024, month = 1, day = 1 }), f = os.date("%F %H:%M:%S %a %% %q %", t),
        utcYear = os.date("!%Y"), tt = os.date("*t", t) }`);
    const t = new Date(2024, 1, 29, 10, 30, 15).getTime() / 1000;
    expect(out.keys).toEqual(['date', 'time']);
    expect(out.t).toBe(t);
    expect(out.noon).toBe(new Date(2024, 0, 1, 12).getTime() / 1000);
    expect(out.f).toBe('2024-02-29 10:30:15 mon % %q %');
    expect(out.utcYear).toBe(String(new Date().getUTCFullYear()));
    expect(out.tt).toEqual({ year: 2024, month: 2, day: 29, hour: 10, min: 30, sec: 15, wday: 5, yday: 0, isdst: false });
  });

  it('offers the Lua 5.1 table and math functions', async () => {
    const out = await reflect(`local keys = {}; for k in pairs(table) do table.insert(keys, k) end; table.sort(keys)
      local m = {}; for k in pairs(math) do table.insert(m, k) end; table.sort(m)
      return { table = keys, math = m }`);
    expect(out.table).toEqual(['concat', 'getn', 'insert', 'maxn', 'remove', 'sort']);
    expect(out.math).toEqual([
      'abs',
      'acos',
      'asin',
      'atan',
      'atan2',
      'ceil',
      'cos',
      'cosh',
      'deg',
      'exp',
      'floor',
      'fmod',
      'frexp',
      'huge',
      'ldexp',
      'log',
      'log10',
      'max',
      'min',
      'mod',
      'modf',
      'pi',
      'pow',
      'rad',
      'random',
      'randomseed',
      'sin',
      'sinh',
      'sqrt',
      'tan',
      'tanh',
    ]);
  });

  it('raises for string.gsub, string.rep and string.dump, keeps the rest and the string metatable', async () => {
    for (const fn of ['gsub', 'rep', 'dump']) {
      await expect(reflect(`string.${fn}("a", "a", "b"); return {}`)).rejects.toThrow(`The Lua function string.${fn} is not supported by Karmada.`);
    }
    expect(
      await reflect(`return { u = ("abc"):upper(), f = string.find("a.b", ".", 1, true), m = string.match("v1.2", "v(%d+)"),
      g = type(string.gfind), s = ("hello"):sub(2, 3), b = string.byte("A"), c = string.char(72, 105), r = string.reverse("ab"), l = #"héllo" }`),
    ).toEqual({
      u: 'ABC',
      f: 2,
      m: '1',
      g: 'function',
      s: 'el',
      b: 65,
      c: 'Hi',
      r: 'ba',
      l: 6,
    });
  });

  it('rejects string arguments over 1,000,000 bytes in the string library', async () => {
    const obj = workload({ big: 'x'.repeat(1_000_001) });
    await expect(rt.call('InterpretStatus', reflectScript(`return { u = string.upper(observedObj.big) }`), [obj])).rejects.toThrow(
      'string length 1000001 exceeds the maximum allowed input string length 1000000 in Karmada lua string lib',
    );
  });

  it('require loads only kube', async () => {
    expect(await reflect(`local kube = require("kube"); return { t = type(kube.resourceAdd), same = require("kube") == kube }`)).toEqual({
      t: 'function',
      same: true,
    });
    await expect(reflect(`require("os"); return {}`)).rejects.toThrow(/module os not found/);
    await expect(reflect(`package.loadlib("x", "y"); return {}`)).rejects.toThrow(/loadlib is not supported/);
  });

  it('reports _VERSION as Lua 5.1', async () => {
    expect(await reflect(`return { v = _VERSION }`)).toEqual({ v: 'Lua 5.1' });
  });
});

describe('isolation between calls', () => {
  it('does not keep globals from an earlier call', async () => {
    const script = reflectScript(`counter = (counter or 0) + 1; return { counter = counter }`);
    expect(await rt.call('InterpretStatus', script, [workload()])).toEqual({ counter: 1 });
    expect(await rt.call('InterpretStatus', script, [workload()])).toEqual({ counter: 1 });
  });

  it('restores library tables a script modified', async () => {
    await reflect(`string.upper = function() return "hacked" end; table.insert = nil; math.pi = 3; kube = nil; package.loaded.kube = nil; return {}`);
    await reflect(`local k = require("kube"); k.resourceAdd = nil; return {}`);
    expect(
      await reflect(`local k = require("kube"); return { u = ("a"):upper(), t = type(table.insert), pi = math.pi > 3.14, add = k.resourceAdd("1", "2") }`),
    ).toEqual({
      u: 'A',
      t: 'function',
      pi: true,
      add: '3',
    });
  });

  it('restores library tables changed through table.insert, table.sort and table.remove, call after call', async () => {
    // table.sort writes with lua_rawseti, which fengari does not mark as a write (state.ts relies on marks).
    for (let i = 0; i < 3; i++) {
      expect(
        await reflect(
          `local n = #package.loaders; table.insert(package.loaders, 1, function() end); table.sort(package.loaders, function(a, b) return tostring(a) < tostring(b) end); return { n = n, after = #package.loaders }`,
        ),
      ).toEqual({ n: 1, after: 2 });
      expect(await reflect(`table.insert(math, "x"); table.insert(math, "a"); table.sort(math); return { first = math[1], n = #math }`)).toEqual({
        first: 'a',
        n: 2,
      });
      expect(await reflect(`local f = table.remove(package.loaders); return { n = #package.loaders, f = type(f) }`)).toEqual({ n: 0, f: 'function' });
      expect(await reflect(`return { n = #math, loaders = #package.loaders, kube = type(require("kube").resourceAdd) }`)).toEqual({
        n: 0,
        loaders: 1,
        kube: 'function',
      });
    }
  });

  it('lets _G refer to the call environment', async () => {
    expect(await reflect(`_G.x = 5; return { x = x, g = _G == _G._G }`)).toEqual({ x: 5, g: true });
  });

  it('keeps the base functions in the globals table itself, as gopher-lua does', async () => {
    // Karmada's FlinkDeployment AggregateStatus uses `error` as a variable and may assign it nil: the
    // global is then gone (no built-in showing through), and pairs(_G) walks the libraries too.
    const out = await reflect(`error = ''; error = nil; tostring = nil; string = nil
      local seen = {}
      for k in pairs(_G) do seen[k] = true end
      return { error = type(error), tostring = type(tostring), string = type(string), math = seen.math, pairs = seen.pairs, G = seen._G }`);
    expect(out).toEqual({ error: 'nil', tostring: 'nil', string: 'nil', math: true, pairs: true, G: true });
    expect(await reflect(`return { error = type(error), tostring = type(tostring), upper = ("a"):upper() }`)).toEqual({
      error: 'function',
      tostring: 'function',
      upper: 'A',
    });
  });

  it('sends print output to onPrint, one line per call, tab-separated', async () => {
    const lines: string[] = [];
    await rt.call('InterpretStatus', reflectScript(`print("replicas", observedObj.spec.replicas, nil, true, 0.5); return {}`), [workload()], {
      onPrint: (l) => lines.push(l),
    });
    expect(lines).toEqual(['replicas\t3\tnil\ttrue\t0.5']);
  });
});
