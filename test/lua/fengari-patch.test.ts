// patches/fengari+0.1.5.patch (docs/decisions/0010), applied to node_modules/fengari by patch-package from
// `postinstall`: these tests fail when the installed fengari is not the patched one. They run fengari's own
// libraries on a bare state, not Karmada's sandbox (which replaces string.rep, format and table.concat with
// its own), so what they exercise is the patched code.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { guardAllocation, lauxlib, lua, lualib, observeStringAllocations, setAllocationGuard, to_jsstring, to_luastring } from '../../src/lua/engine/index.ts';

const require = createRequire(import.meta.url);
const ROOT = resolve(import.meta.dirname, '../..');
const FENGARI_SRC = dirname(require.resolve('fengari/src/lapi.js'));
const MESSAGE = 'memory limit exceeded';

afterEach(() => {
  setAllocationGuard(undefined);
  observeStringAllocations(undefined);
});

function newState(): any {
  const L = lauxlib.luaL_newstate();
  lualib.luaL_openlibs(L);
  return L;
}

interface Outcome {
  ok: boolean;
  values: unknown[];
}

/** Runs a chunk in protected mode; its results (strings decoded) or its error message. The stack is left as found. */
function run(L: any, source: string): Outcome {
  const base = lua.lua_gettop(L);
  let status = lauxlib.luaL_loadstring(L, to_luastring(source));
  if (status === lua.LUA_OK) status = lua.lua_pcall(L, 0, lua.LUA_MULTRET, 0);
  const values: unknown[] = [];
  for (let i = base + 1; i <= lua.lua_gettop(L); i++) {
    const type = lua.lua_type(L, i);
    values.push(type === lua.LUA_TSTRING ? to_jsstring(lua.lua_tostring(L, i)) : type === lua.LUA_TNUMBER ? lua.lua_tonumber(L, i) : lua.lua_toboolean(L, i));
  }
  lua.lua_settop(L, base);
  return { ok: status === lua.LUA_OK, values };
}

/** A guard as a memory budget would be: a Lua error for any allocation over `limit` bytes; every call recorded. */
function limitGuard(limit: number, calls: number[] = []) {
  return (L: unknown, bytes: number) => {
    calls.push(bytes);
    if (bytes > limit) lauxlib.luaL_error(L, to_luastring(MESSAGE));
  };
}

/**
 * Runs `body` recording in `sizes` the length of every Uint8Array created meanwhile: fengari allocates every
 * new string and luaL_Buffer as `new Uint8Array(length)`, looking the constructor up on the global object.
 */
function recordingAllocations<T>(sizes: number[], body: () => T): T {
  const original = globalThis.Uint8Array;
  globalThis.Uint8Array = new Proxy(original, {
    construct(target, args, newTarget) {
      if (typeof args[0] === 'number') sizes.push(args[0]);
      return Reflect.construct(target, args, newTarget);
    },
  });
  try {
    return body();
  } finally {
    globalThis.Uint8Array = original;
  }
}

describe('the installed fengari is patched (patches/fengari+0.1.5.patch)', () => {
  it('fengari is pinned to the version the patch is for, and `npm ci` applies it, failing when it does not apply', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.dependencies.fengari).toBe('0.1.5');
    expect(JSON.parse(readFileSync(join(FENGARI_SRC, '../package.json'), 'utf8')).version).toBe('0.1.5');
    expect(readdirSync(join(ROOT, 'patches'))).toEqual(['fengari+0.1.5.patch']);
    expect(pkg.dependencies['patch-package']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.scripts.postinstall).toMatch(/^patch-package\b.*--error-on-fail/);
  });

  it('frees stack slots without `delete` (a V8 slow path on every call and pop)', () => {
    const deletes = readdirSync(FENGARI_SRC)
      .filter((f) => f.endsWith('.js'))
      .flatMap((f) => (readFileSync(join(FENGARI_SRC, f), 'utf8').match(/delete\s+\w+\.stack\[/g) ?? []).map(() => f));
    expect(deletes).toEqual([]);
    // Behaviourally: a popped slot stays an own element of the stack array, holding undefined (`delete` would leave a hole).
    const L = newState();
    lua.lua_createtable(L, 0, 0);
    lua.lua_pushinteger(L, 7);
    const slot = L.top - 1;
    lua.lua_rawseti(L, -2, 1); // pops the value
    expect(L.top).toBe(slot);
    expect(slot in L.stack).toBe(true);
    expect(L.stack[slot]).toBeUndefined();
  });

  it('keeps closures, upvalues, varargs and call/return results intact', () => {
    const out = run(
      newState(),
      `local fns = {}
       for i = 1, 5 do fns[i] = function() return i * 10 end end
       local function counter() local n = 0 return function() n = n + 1 return n end end
       local c = counter(); c(); c()
       local function pack(...) return select('#', ...), ... end
       local function deep(n) if n == 0 then return 1, 2, 3 end return deep(n - 1) end
       local a, b, cc = deep(200)
       local count, x, y, z = pack(7, nil, 9)
       local sum = 0
       for _, v in ipairs({ 1, 2, 3, 4 }) do sum = sum + v end
       return fns[3](), c(), a + b + cc, count, x, y == nil, z, sum, select('#', string.byte("abc", 1, 3)), pcall(error, "e")`,
    );
    expect(out).toEqual({ ok: true, values: [30, 3, 6, 3, 7, true, 9, 10, 3, false, 'e'] });
  });
});

describe('setAllocationGuard', () => {
  const concat = 'return #(string.rep("x", 1e6) .. string.rep("y", 1e6))';

  it('changes nothing without a guard (and the allocation recorder sees what `..` allocates)', () => {
    const sizes: number[] = [];
    expect(recordingAllocations(sizes, () => run(newState(), concat))).toEqual({ ok: true, values: [2_000_000] });
    expect(sizes).toContain(2_000_000);
    guardAllocation(newState(), 1e12); // no guard installed: nothing happens
  });

  it('is called before `..` allocates its result: a guard that raises stops it, nothing of that size allocated', () => {
    const sizes: number[] = [];
    const calls: number[] = [];
    const guard = limitGuard(1_500_000, calls);
    let allocatedBeforeAsked: number[] | undefined;
    setAllocationGuard((L, bytes) => {
      if (bytes === 2_000_000) allocatedBeforeAsked = [...sizes];
      guard(L, bytes);
    });
    const outcome = recordingAllocations(sizes, () => run(newState(), concat));
    expect(outcome.ok).toBe(false);
    expect(outcome.values[0]).toMatch(new RegExp(`${MESSAGE}$`));
    expect(calls).toContain(2_000_000);
    expect(allocatedBeforeAsked).toBeDefined();
    expect(allocatedBeforeAsked).not.toContain(2_000_000);
    expect(Math.max(...sizes)).toBe(1_000_000); // the operands (string.rep's buffers), never the result
  });

  it('is called before table.concat grows its buffer: stopped with no buffer over the limit allocated', () => {
    const script = 'local t = {} for i = 1, 200 do t[i] = string.rep("x", 10000) end return #table.concat(t, ",")';
    expect(run(newState(), script)).toEqual({ ok: true, values: [2_000_199] });
    const sizes: number[] = [];
    const calls: number[] = [];
    setAllocationGuard(limitGuard(1_500_000, calls));
    const outcome = recordingAllocations(sizes, () => run(newState(), script));
    expect(outcome.ok).toBe(false);
    expect(outcome.values[0]).toMatch(new RegExp(`${MESSAGE}$`));
    expect(Math.max(...calls)).toBeGreaterThan(1_500_000);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1_500_000);
  });

  it('gives the guard room to push its message even where `..` has its operands at the top of the frame', () => {
    // s .. s in this loop takes the frame's last two registers, so L.top is the frame's top (ci.top) there.
    const loop = (n: number) => `local s = "x" for i = 1, ${n} do s = s .. s end return #s`;
    let calls = 0;
    setAllocationGuard((L: any) => {
      calls++;
      for (let i = 0; i < lua.LUA_MINSTACK; i++) lua.lua_pushinteger(L, i);
      lua.lua_pop(L, lua.LUA_MINSTACK);
    });
    const L = newState();
    expect(run(L, loop(12))).toEqual({ ok: true, values: [4096] });
    expect(calls).toBe(12);
    setAllocationGuard((Ls, bytes) => {
      if (bytes <= 1_000_000) return;
      lua.lua_pushstring(Ls, to_luastring(`${MESSAGE} (${bytes} bytes)`));
      lua.lua_error(Ls);
    });
    expect(run(L, loop(25))).toEqual({ ok: false, values: [`${MESSAGE} (1048576 bytes)`] });
    expect(run(L, `local ok, err = pcall(function() ${loop(25)} end) return ok, err, #(("x"):rep(10) .. "y")`)).toEqual({
      ok: true,
      values: [false, `${MESSAGE} (1048576 bytes)`, 11],
    });
  });

  it('sees every allocation a script sizes: buffers, results copied out of them, `..`, reverse/upper/lower', () => {
    const calls: number[] = [];
    setAllocationGuard((_L, bytes) => calls.push(bytes));
    const L = newState();
    expect(run(L, 'local s = string.rep("ab", 50) return #(s .. "!")')).toEqual({ ok: true, values: [101] });
    expect(calls).toEqual([100, 100, 101]); // the buffer, its copy into a string, the concatenation
    calls.length = 0;
    expect(run(L, 'local s = ("x"):rep(3000) return #s:reverse() + #s:upper() + #s:lower()')).toEqual({ ok: true, values: [9000] });
    expect(calls).toEqual([3000, 3000, 6000, 6000, 6000]);
  });

  it('leaves the state consistent wherever it raises: pcall catches it, the script goes on, the stack is balanced', () => {
    const body = `
      local s = string.rep("ab", 50)
      local r = string.reverse(s)
      local c = s .. r .. #s
      local t = table.concat({ s, r, c }, ",")
      local u = string.upper(s) .. string.lower(s) .. string.format("%5d", #t)
      return #t + #u`;
    const L = newState();
    const expected = run(L, body);
    expect(expected.ok).toBe(true);
    const calls: number[] = [];
    setAllocationGuard((_L, bytes) => calls.push(bytes));
    expect(run(L, body)).toEqual(expected);
    const points = calls.length;
    expect(points).toBeGreaterThan(8);
    for (let n = 1; n <= points; n++) {
      let seen = 0;
      setAllocationGuard((Ls) => {
        if (++seen === n) lauxlib.luaL_error(Ls, to_luastring(MESSAGE));
      });
      const top = lua.lua_gettop(L);
      const outcome = run(L, `local ok, err = pcall(function() ${body} end) return ok, err, 40 + 2`);
      expect(lua.lua_gettop(L)).toBe(top);
      expect(outcome.ok, `guard call ${n}`).toBe(true);
      expect(outcome.values[0]).toBe(false);
      expect(outcome.values[1]).toMatch(new RegExp(`${MESSAGE}$`));
      expect(outcome.values[2]).toBe(42);
    }
    setAllocationGuard(undefined);
    expect(run(L, body)).toEqual(expected);
  });
});

describe('observeStringAllocations', () => {
  it('sees every string over 64 bytes fengari makes, afterwards: `..` results and strings pushed through the API', () => {
    const seen: number[] = [];
    observeStringAllocations((_L, bytes) => seen.push(bytes));
    const L = newState();
    expect(run(L, 'local s = ("x"):rep(100) return #(s .. "y"), #(("z"):rep(64) .. "")')).toEqual({ ok: true, values: [101, 64] });
    expect(seen).toContain(100); // string.rep's result, pushed with lua_pushlstring
    expect(seen).toContain(101); // the concatenation
    expect(seen.filter((n) => n <= 64)).toEqual([]);
    observeStringAllocations(undefined);
    seen.length = 0;
    run(L, 'return ("x"):rep(100) .. "y"');
    expect(seen).toEqual([]);
  });
});
