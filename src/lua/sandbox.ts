// Karmada's sandbox (luavm/lua.go setLib, pkg/util/lifted/lua) in a fengari state: which libraries and
// functions a script sees, under Lua 5.1 names, the "not supported" stubs, `require("kube")`, and the fresh
// globals of each call. The functions themselves are gopher/'s (gopher-lua's semantics) and karmada/'s.
import { copyEntries, lua, lauxlib, lualib, tableAt, to_luastring, type LuaTable } from './engine/index.ts';
import { raise, type CFunction } from './gopher/args.ts';
import { print, tonumber, tostring } from './gopher/base.ts';
import { GOPHER_MATH_FUNCTIONS } from './gopher/math.ts';
import { OS_FUNCTIONS } from './gopher/os.ts';
import { stringFind, stringGmatch, stringMatch } from './gopher/string-patterns.ts';
import { stringByte, stringChar, stringFormat, stringLower, stringSub, stringUpper, withLengthLimit } from './gopher/string.ts';
import { tableConcat, tableGetn, tableInsert, tableRemove, tableSort } from './gopher/table.ts';
import { openKube } from './karmada/kube.ts';
import { next, pairs, pushInterned } from './karmada/lazy.ts';
import { pushPackage, requireModule } from './karmada/package.ts';

/** The base functions Karmada's sandbox replaces with a "not supported" error. */
export const UNSUPPORTED_BASE_FUNCTIONS: readonly string[] = [
  ...['collectgarbage', 'dofile', 'getfenv', 'getmetatable', 'load', 'loadfile', 'loadstring'],
  ...['rawequal', 'rawget', 'rawset', 'setfenv', 'setmetatable', 'module', 'newproxy'],
];

const BASE_FUNCTIONS = ['assert', 'error', 'ipairs', 'pcall', 'xpcall', 'select', 'tonumber', 'tostring', 'type'];
/** gopher-lua's table library under Lua 5.1 names (no pack/unpack/move): getn and maxn are both LTable.Len. */
const TABLE_FUNCTIONS = { concat: tableConcat, insert: tableInsert, remove: tableRemove, sort: tableSort, getn: tableGetn, maxn: tableGetn };
const MATH_FROM_FENGARI = ['abs', 'acos', 'asin', 'cos', 'exp', 'random', 'randomseed', 'sin', 'sqrt', 'tan', 'pi'];

function setFunction(L: any, name: string, fn: CFunction): void {
  lua.lua_pushcfunction(L, fn);
  lua.lua_setfield(L, -2, to_luastring(name));
}

function copyField(L: any, fromIndex: number, name: string): void {
  lua.lua_getfield(L, fromIndex, to_luastring(name));
  lua.lua_setfield(L, -2, to_luastring(name));
}

function unsupported(name: string): CFunction {
  // Karmada's message, at the calling line (Karmada's override is a one-line chunk: "<string>:1:").
  return (L) => raise(L, `call function ${name} is not supported in karmada customized resourceinterpreter.`);
}

function stringUnsupported(name: string): CFunction {
  return (L) =>
    raise(
      L,
      `The Lua function string.${name} is not supported by Karmada. If you believe this function is essential for your use case, please submit an issue to let us know why you need it.`,
    );
}

export interface SandboxHandles {
  /** Registry reference of the table every per-call environment is a copy of (pushFreshGlobals). */
  baseRef: number;
  /** Registry references of the tables a script could mutate (base, libraries, package, kube). */
  protectedRefs: number[];
}

/**
 * Builds the sandbox inside a fresh state. `print` lines go to `onPrint()` (read at call time, so the
 * runtime can route them per call).
 */
export function openSandbox(L: any, onPrint: () => ((line: string) => void) | undefined): SandboxHandles {
  // Open fengari's libraries as globals first, then copy only what Karmada offers into `base`.
  const fengariLibraries = { _G: lualib.luaopen_base, table: lualib.luaopen_table, string: lualib.luaopen_string, math: lualib.luaopen_math };
  for (const [name, open] of Object.entries(fengariLibraries)) lauxlib.luaL_requiref(L, to_luastring(name), open, 1);
  lua.lua_settop(L, 0);
  lua.lua_pushglobaltable(L); // 1: fengari's globals
  const fengariGlobals = 1;

  lua.lua_createtable(L, 0, 48); // 2: base
  const base = 2;
  for (const name of BASE_FUNCTIONS) copyField(L, fengariGlobals, name);
  for (const name of UNSUPPORTED_BASE_FUNCTIONS) setFunction(L, name, unsupported(name));
  setFunction(L, 'print', print(onPrint));
  setFunction(L, 'next', next);
  setFunction(L, 'pairs', pairs);
  setFunction(L, 'tonumber', tonumber);
  setFunction(L, 'tostring', tostring);
  setFunction(L, '_printregs', () => 0);
  lua.lua_pushstring(L, to_luastring('Lua 5.1'));
  lua.lua_setfield(L, base, to_luastring('_VERSION'));
  lua.lua_pushstring(L, to_luastring('GopherLua 0.1'));
  lua.lua_setfield(L, base, to_luastring('_GOPHER_LUA_VERSION'));

  // table, and fengari's unpack as a base function
  lua.lua_getfield(L, fengariGlobals, to_luastring('table'));
  const fengariTable = lua.lua_gettop(L);
  lua.lua_getfield(L, fengariTable, to_luastring('unpack'));
  lua.lua_setfield(L, base, to_luastring('unpack'));
  lua.lua_createtable(L, 0, 6);
  for (const [name, fn] of Object.entries(TABLE_FUNCTIONS)) setFunction(L, name, fn);
  lua.lua_setfield(L, base, to_luastring('table'));
  lua.lua_pop(L, 1);

  // string: keep fengari's table (its metatable makes ("x"):upper() work) but reshape its contents.
  lua.lua_getfield(L, fengariGlobals, to_luastring('string'));
  const stringLib = lua.lua_gettop(L);
  const [find, len, match, reverse] = ['find', 'len', 'match', 'reverse'].map((name): CFunction => {
    lua.lua_getfield(L, stringLib, to_luastring(name));
    const fn = lua.lua_tocfunction(L, -1);
    lua.lua_pop(L, 1);
    return fn;
  });
  lua.lua_pushnil(L);
  while (lua.lua_next(L, stringLib) !== 0) {
    // clear it (keys collected first: no writes while iterating)
    lua.lua_pop(L, 1);
    lua.lua_pushvalue(L, -1);
    lua.lua_pushnil(L);
    lua.lua_rawset(L, stringLib);
  }
  const stringFunctions: Record<string, CFunction> = {
    byte: stringByte,
    char: stringChar,
    find: stringFind(find),
    gmatch: stringGmatch(find),
    len,
    lower: stringLower,
    match: stringMatch(match),
    reverse,
    sub: stringSub,
    upper: stringUpper,
  };
  lua.lua_pushvalue(L, stringLib);
  for (const [name, fn] of Object.entries(stringFunctions)) setFunction(L, name, withLengthLimit(name, fn));
  lua.lua_getfield(L, -1, to_luastring('gmatch'));
  lua.lua_setfield(L, -2, to_luastring('gfind'));
  setFunction(L, 'format', stringFormat);
  for (const name of ['dump', 'gsub', 'rep']) setFunction(L, name, stringUnsupported(name));
  lua.lua_pop(L, 1);
  lua.lua_setfield(L, base, to_luastring('string'));

  // math (gopher-lua's list; math.huge is the largest finite float64 there)
  lua.lua_getfield(L, fengariGlobals, to_luastring('math'));
  const fengariMath = lua.lua_gettop(L);
  lua.lua_createtable(L, 0, 32);
  for (const name of MATH_FROM_FENGARI) copyField(L, fengariMath, name);
  for (const [name, fn] of Object.entries(GOPHER_MATH_FUNCTIONS)) setFunction(L, name, fn);
  lua.lua_pushnumber(L, Number.MAX_VALUE);
  lua.lua_setfield(L, -2, to_luastring('huge'));
  lua.lua_setfield(L, base, to_luastring('math'));
  lua.lua_pop(L, 1);

  // os: only time and date
  lua.lua_createtable(L, 0, 2);
  for (const [name, fn] of Object.entries(OS_FUNCTIONS)) setFunction(L, name, fn);
  lua.lua_setfield(L, base, to_luastring('os'));

  // package: preload only (loadlib_safe.go), and require() that consults nothing else.
  pushPackage(L, { kube: openKube });
  const pkg = lua.lua_gettop(L);
  lua.lua_pushvalue(L, pkg);
  lua.lua_setfield(L, base, to_luastring('package'));
  lua.lua_pushvalue(L, pkg);
  lua.lua_pushcclosure(L, requireModule, 1);
  lua.lua_setfield(L, base, to_luastring('require'));

  // Load kube once now so the protected-table snapshot includes it.
  lua.lua_pushvalue(L, base);
  lua.lua_getfield(L, -1, to_luastring('require'));
  lua.lua_pushstring(L, to_luastring('kube'));
  lua.lua_call(L, 1, 1);
  const kubeIndex = lua.lua_gettop(L);

  // The tables a script can reach and assign into, restored after a call that changed them (state.ts).
  const protectedRefs: number[] = [];
  const protect = (index: number) => {
    lua.lua_pushvalue(L, index);
    protectedRefs.push(lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX));
  };
  for (const index of [base, kubeIndex, pkg]) protect(index);
  const protectField = (table: number, name: string) => {
    lua.lua_getfield(L, table, to_luastring(name));
    protect(lua.lua_gettop(L));
    lua.lua_pop(L, 1);
  };
  for (const name of ['string', 'table', 'math', 'os']) protectField(base, name);
  for (const name of ['preload', 'loaded', 'loaders']) protectField(pkg, name);

  lua.lua_pushvalue(L, base);
  const baseRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);

  // Nothing may reach fengari's own global table any more (chunks get a per-call _ENV).
  lua.lua_settop(L, 0);
  return { baseRef, protectedRefs };
}

/**
 * Pushes a new globals table for one call: a copy of every entry of `base` (the table behind
 * baseRef, as engine tableAt gives it), with `_G` set to the copy itself. gopher-lua keeps the base
 * functions in the globals table itself, so a script that assigns to a global named like one (Karmada's
 * FlinkDeployment script uses `error` as a variable) and later assigns nil removes it, and `pairs(_G)`
 * lists every library; an environment inheriting through `__index` would bring the built-in back instead.
 */
export function pushFreshGlobals(L: any, base: LuaTable): void {
  lua.lua_createtable(L, 0, 0);
  copyEntries(base, tableAt(L, -1));
  pushInterned(L, '_G');
  lua.lua_pushvalue(L, -2);
  lua.lua_rawset(L, -3);
}
