// patches/fengari+0.1.5.patch (docs/decisions/0010), applied to node_modules/fengari by patch-package from
// `postinstall`: these tests fail when the installed fengari is not the patched one. They run fengari's own
// libraries on a bare state, not Karmada's sandbox, so what they exercise is the patched code.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lauxlib, lua, lualib, to_jsstring, to_luastring } from '../../src/lua/fengari.ts';

const require = createRequire(import.meta.url);
const ROOT = resolve(import.meta.dirname, '../..');
const FENGARI_SRC = dirname(require.resolve('fengari/src/lapi.js'));

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
