// A fengari lua_State set up as Karmada's sandbox (luavm/lua.go setLib + pkg/util/lifted/lua):
// only the libraries and functions gopher-lua opens there, Lua 5.1 names, the listed base functions
// raising "not supported", safe string/os/package libraries and `require("kube")`.
import { lobject, lua, lauxlib, lualib, ltable, to_luastring } from './fengari.ts';
import { goSprintf, type FormatArg } from './goformat.ts';
import { luaNumberToString, patchFengariNumbers } from './numbers.ts';
import { openKube } from './kube.ts';
import { appendEntry, materialize, pushInterned } from './lazy.ts';

const TValue = lobject.TValue;
import { OS_FUNCTIONS } from './oslib.ts';
import { gopherToNumber } from './tonumber.ts';

patchFengariNumbers();

type CFunction = (L: any) => number;
const utf8 = new TextDecoder('utf-8', { fatal: false });

export const UNSUPPORTED_BASE_FUNCTIONS = [
  'collectgarbage', 'dofile', 'getfenv', 'getmetatable', 'load', 'loadfile', 'loadstring',
  'rawequal', 'rawget', 'rawset', 'setfenv', 'setmetatable', 'module', 'newproxy',
] as const;

const BASE_FUNCTIONS = ['assert', 'error', 'ipairs', 'pcall', 'xpcall', 'select', 'tonumber', 'tostring', 'type'];
const STRING_FUNCTIONS = ['byte', 'char', 'find', 'len', 'lower', 'match', 'reverse', 'sub', 'upper', 'gmatch'];
const STRING_ARGS_CHECKED: Record<string, number[]> = {
  byte: [1], find: [1, 2], match: [1, 2], gmatch: [1, 2], lower: [1], upper: [1], reverse: [1], sub: [1],
};
const MAX_STRING_PARAM_LENGTH = 1_000_000;
const MATH_FROM_FENGARI = ['abs', 'acos', 'asin', 'cos', 'deg', 'exp', 'fmod', 'modf', 'rad', 'random', 'randomseed', 'sin', 'sqrt', 'tan', 'pi'];

export function luaToJsString(L: any, index: number): string {
  return utf8.decode(lua.lua_tolstring(L, index));
}

/** luaL_checkstring (numbers are converted in place), as a JS string. */
function checkedString(L: any, index: number): string {
  return utf8.decode(lauxlib.luaL_checklstring(L, index));
}

function setFunction(L: any, name: string, fn: CFunction): void {
  lua.lua_pushcfunction(L, fn);
  lua.lua_setfield(L, -2, to_luastring(name));
}

function copyField(L: any, fromIndex: number, name: string, as = name): void {
  lua.lua_getfield(L, fromIndex, to_luastring(name));
  lua.lua_setfield(L, -2, to_luastring(as));
}

function raise(L: any, message: string): never {
  lauxlib.luaL_error(L, to_luastring(message.replace(/%/g, '%%')));
  throw new Error('unreachable');
}

function unsupported(name: string): CFunction {
  // Karmada's message (its override is a one-line Lua chunk, so it also says "<string>:1:"; we report
  // the calling line instead, which is the useful one).
  return (L) => raise(L, `call function ${name} is not supported in karmada customized resourceinterpreter.`);
}

function stringUnsupported(name: string): CFunction {
  return (L) => raise(L, `The Lua function string.${name} is not supported by Karmada. If you believe this function is essential for your use case, please submit an issue to let us know why you need it.`);
}

function withStringLengthCheck(fn: CFunction, args: number[]): CFunction {
  return (L) => {
    for (const arg of args) {
      if (lua.lua_type(L, arg) === lua.LUA_TSTRING) {
        const length = lua.lua_rawlen(L, arg);
        if (length > MAX_STRING_PARAM_LENGTH) {
          raise(L, `string length ${length} exceeds the maximum allowed input string length ${MAX_STRING_PARAM_LENGTH} in Karmada lua string lib, please check your lua script.`);
        }
      }
    }
    return fn(L);
  };
}

function typeName(L: any, index: number): string {
  return utf8.decode(lua.lua_typename(L, lua.lua_type(L, index)));
}

function formatArgAt(L: any, index: number): FormatArg {
  switch (lua.lua_type(L, index)) {
    case lua.LUA_TNUMBER: return { type: 'number', value: lua.lua_tonumber(L, index) };
    case lua.LUA_TSTRING: return { type: 'string', value: luaToJsString(L, index) };
    case lua.LUA_TBOOLEAN: return { type: 'boolean', value: lua.lua_toboolean(L, index) };
    case lua.LUA_TNIL: case lua.LUA_TNONE: return { type: 'nil' };
    default: {
      const name = typeName(L, index);
      lauxlib.luaL_tolstring(L, index);
      const text = luaToJsString(L, -1);
      lua.lua_pop(L, 1);
      return { type: 'other', goType: name === 'table' ? '*lua.LTable' : `lua.${name}`, text };
    }
  }
}

const stringFormat: CFunction = (L) => {
  const format = checkedString(L, 1);
  if (lua.lua_rawlen(L, 1) > MAX_STRING_PARAM_LENGTH) {
    raise(L, `string length ${lua.lua_rawlen(L, 1)} exceeds the maximum allowed input string length ${MAX_STRING_PARAM_LENGTH} in Karmada lua string lib, please check your lua script.`);
  }
  const verbs = (format.match(/%/g)?.length ?? 0) - 2 * (format.match(/%%/g)?.length ?? 0);
  const args: FormatArg[] = [];
  const top = lua.lua_gettop(L);
  for (let i = 2; i <= top && args.length < verbs; i++) args.push(formatArgAt(L, i));
  lua.lua_pushstring(L, to_luastring(goSprintf(format, args)));
  return 1;
};

const number1 = (fn: (x: number) => number): CFunction => (L) => {
  lua.lua_pushnumber(L, fn(lauxlib.luaL_checknumber(L, 1)));
  return 1;
};

/** frexp as C defines it: x = m * 2^e with 0.5 <= |m| < 1. */
function frexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  let e = Math.max(-1073, Math.floor(Math.log2(Math.abs(x))) + 1);
  let m = x * 2 ** -e;
  while (Math.abs(m) < 0.5) { m *= 2; e--; }
  while (Math.abs(m) >= 1) { m /= 2; e++; }
  return [m, e];
}

/**
 * gopher-lua math.max / math.min: every argument through CheckNumber (numeric strings converted), the
 * result a number. fengari compares the original values, so numeric strings compare as strings
 * (math.max("2", "10") is "2") and a string mixed with a number raises.
 */
function mathExtreme(pick: (candidate: number, best: number) => boolean): CFunction {
  return (L) => {
    const top = lua.lua_gettop(L);
    if (top === 0) raise(L, 'wrong number of arguments');
    let best = lauxlib.luaL_checknumber(L, 1);
    for (let i = 2; i <= top; i++) {
      const candidate = lauxlib.luaL_checknumber(L, i);
      if (pick(candidate, best)) best = candidate;
    }
    lua.lua_pushnumber(L, best);
    return 1;
  };
}

const mathExtras: Record<string, CFunction> = {
  max: mathExtreme((candidate, best) => candidate > best),
  min: mathExtreme((candidate, best) => candidate < best),
  // Lua 5.1 floor/ceil return floats; fengari's would return (32-bit) integers.
  floor: number1(Math.floor),
  ceil: number1(Math.ceil),
  atan: number1(Math.atan),
  atan2: (L) => { lua.lua_pushnumber(L, Math.atan2(lauxlib.luaL_checknumber(L, 1), lauxlib.luaL_checknumber(L, 2))); return 1; },
  cosh: number1(Math.cosh),
  sinh: number1(Math.sinh),
  tanh: number1(Math.tanh),
  log10: number1(Math.log10),
  log: number1(Math.log),
  pow: (L) => { lua.lua_pushnumber(L, Math.pow(lauxlib.luaL_checknumber(L, 1), lauxlib.luaL_checknumber(L, 2))); return 1; },
  ldexp: (L) => { lua.lua_pushnumber(L, lauxlib.luaL_checknumber(L, 1) * 2 ** lauxlib.luaL_checknumber(L, 2)); return 1; },
  frexp: (L) => { const [m, e] = frexp(lauxlib.luaL_checknumber(L, 1)); lua.lua_pushnumber(L, m); lua.lua_pushnumber(L, e); return 2; },
  // gopher-lua's math.mod is luaModulo (the sign follows the divisor, like `%`), not fmod.
  mod: (L) => {
    const divisor = lauxlib.luaL_checknumber(L, 2);
    let result = lauxlib.luaL_checknumber(L, 1) % divisor;
    if ((divisor > 0 && result < 0) || (divisor < 0 && result > 0)) result += divisor;
    lua.lua_pushnumber(L, result);
    return 1;
  },
};

const tableGetn: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  lua.lua_pushnumber(L, lauxlib.luaL_len(L, 1));
  return 1;
};

/**
 * table.sort without Lua 5.3's "invalid order function for sorting": gopher-lua sorts with Go's sort
 * package, which never raises for an inconsistent comparator (e.g. `a.x <= b.x`). Values are copied
 * to a scratch table, indices sorted in JS (the Lua comparator still runs under the count hook), and
 * written back.
 */
const tableSort: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  const n = lauxlib.luaL_len(L, 1);
  const hasComparator = !lua.lua_isnoneornil(L, 2);
  if (hasComparator) lauxlib.luaL_checktype(L, 2, lua.LUA_TFUNCTION);
  lua.lua_settop(L, 2);
  lua.lua_createtable(L, n, 0); // 3: scratch copy
  for (let i = 1; i <= n; i++) {
    lua.lua_rawgeti(L, 1, i);
    lua.lua_rawseti(L, 3, i);
  }
  const lessThan = (a: number, b: number): boolean => {
    if (hasComparator) {
      lua.lua_pushvalue(L, 2);
      lua.lua_rawgeti(L, 3, a);
      lua.lua_rawgeti(L, 3, b);
      lua.lua_call(L, 2, 1);
      const result = lua.lua_toboolean(L, -1);
      lua.lua_pop(L, 1);
      return result;
    }
    lua.lua_rawgeti(L, 3, a);
    lua.lua_rawgeti(L, 3, b);
    const result = lua.lua_compare(L, -2, -1, lua.LUA_OPLT);
    lua.lua_pop(L, 2);
    return result;
  };
  const order = Array.from({ length: n }, (_, i) => i + 1);
  order.sort((a, b) => (lessThan(a, b) ? -1 : lessThan(b, a) ? 1 : 0));
  order.forEach((from, i) => {
    lua.lua_rawgeti(L, 3, from);
    lua.lua_rawseti(L, 1, i + 1);
  });
  // lua_rawseti, unlike the VM's writes, does not mark the table written (state.ts relies on the mark).
  ltable.invalidateTMcache(lua.lua_topointer(L, 1));
  return 0;
};

const tableMaxn: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  materialize(L, 1);
  let max = 0;
  lua.lua_pushnil(L);
  while (lua.lua_next(L, 1) !== 0) {
    lua.lua_pop(L, 1);
    if (lua.lua_type(L, -1) === lua.LUA_TNUMBER) max = Math.max(max, lua.lua_tonumber(L, -1));
  }
  lua.lua_pushnumber(L, max);
  return 1;
};

/**
 * `next` and `pairs` see every key, so a lazy table (lazy.ts) is materialized first. Otherwise they are
 * fengari's (pairs without __pairs: no table a script can reach has a metatable of its own).
 */
const luaNext: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  materialize(L, 1);
  lua.lua_settop(L, 2);
  if (lua.lua_next(L, 1) !== 0) return 2;
  lua.lua_pushnil(L);
  return 1;
};

const luaPairs: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  materialize(L, 1);
  lua.lua_pushcfunction(L, luaNext);
  lua.lua_pushvalue(L, 1);
  lua.lua_pushnil(L);
  return 3;
};

/** Lua 5.1 tostring/print formatting of any value (numbers as gopher-lua prints them). */
export function luaValueToString(L: any, index: number): string {
  if (lua.lua_type(L, index) === lua.LUA_TNUMBER) return luaNumberToString(lua.lua_tonumber(L, index));
  lauxlib.luaL_tolstring(L, index);
  const text = luaToJsString(L, -1);
  lua.lua_pop(L, 1);
  return text;
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
  lauxlib.luaL_requiref(L, to_luastring('_G'), lualib.luaopen_base, 1);
  lauxlib.luaL_requiref(L, to_luastring('table'), lualib.luaopen_table, 1);
  lauxlib.luaL_requiref(L, to_luastring('string'), lualib.luaopen_string, 1);
  lauxlib.luaL_requiref(L, to_luastring('math'), lualib.luaopen_math, 1);
  lua.lua_settop(L, 0);
  lua.lua_pushglobaltable(L); // 1: fengari's globals
  const fengariGlobals = 1;

  lua.lua_createtable(L, 0, 48); // 2: base
  const base = 2;
  for (const name of BASE_FUNCTIONS) copyField(L, fengariGlobals, name);
  for (const name of UNSUPPORTED_BASE_FUNCTIONS) setFunction(L, name, unsupported(name));
  setFunction(L, 'print', (Ls) => {
    const parts: string[] = [];
    for (let i = 1, top = lua.lua_gettop(Ls); i <= top; i++) parts.push(luaValueToString(Ls, i));
    onPrint()?.(parts.join('\t'));
    return 0;
  });
  setFunction(L, 'next', luaNext);
  setFunction(L, 'pairs', luaPairs);
  setFunction(L, 'tonumber', gopherToNumber);
  setFunction(L, 'tostring', (Ls) => {
    lauxlib.luaL_checkany(Ls, 1);
    lua.lua_pushstring(Ls, to_luastring(luaValueToString(Ls, 1)));
    return 1;
  });
  setFunction(L, '_printregs', () => 0);
  lua.lua_pushstring(L, to_luastring('Lua 5.1'));
  lua.lua_setfield(L, base, to_luastring('_VERSION'));
  lua.lua_pushstring(L, to_luastring('GopherLua 0.1'));
  lua.lua_setfield(L, base, to_luastring('_GOPHER_LUA_VERSION'));

  // table (Lua 5.1 names; no pack/unpack/move)
  lua.lua_getfield(L, fengariGlobals, to_luastring('table'));
  const fengariTable = lua.lua_gettop(L);
  lua.lua_getfield(L, fengariTable, to_luastring('unpack'));
  lua.lua_setfield(L, base, to_luastring('unpack'));
  lua.lua_createtable(L, 0, 6);
  for (const name of ['concat', 'insert', 'remove']) copyField(L, fengariTable, name);
  setFunction(L, 'sort', tableSort);
  setFunction(L, 'getn', tableGetn);
  setFunction(L, 'maxn', tableMaxn);
  lua.lua_setfield(L, base, to_luastring('table'));
  lua.lua_pop(L, 1);

  // string: keep fengari's table (its metatable makes ("x"):upper() work) but reshape its contents.
  lua.lua_getfield(L, fengariGlobals, to_luastring('string'));
  const stringLib = lua.lua_gettop(L);
  const originals = new Map<string, CFunction>();
  for (const name of STRING_FUNCTIONS) {
    lua.lua_getfield(L, stringLib, to_luastring(name));
    originals.set(name, lua.lua_tocfunction(L, -1));
    lua.lua_pop(L, 1);
  }
  lua.lua_pushnil(L);
  while (lua.lua_next(L, stringLib) !== 0) { // clear it (keys collected first: no writes while iterating)
    lua.lua_pop(L, 1);
    lua.lua_pushvalue(L, -1);
    lua.lua_pushnil(L);
    lua.lua_rawset(L, stringLib);
  }
  for (const [name, fn] of originals) {
    lua.lua_pushvalue(L, stringLib);
    setFunction(L, name, withStringLengthCheck(fn, STRING_ARGS_CHECKED[name] ?? []));
    lua.lua_pop(L, 1);
  }
  lua.lua_pushvalue(L, stringLib);
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
  for (const [name, fn] of Object.entries(mathExtras)) setFunction(L, name, fn);
  lua.lua_pushnumber(L, Number.MAX_VALUE);
  lua.lua_setfield(L, -2, to_luastring('huge'));
  lua.lua_setfield(L, base, to_luastring('math'));
  lua.lua_pop(L, 1);

  // os: only time and date
  lua.lua_createtable(L, 0, 2);
  for (const [name, fn] of Object.entries(OS_FUNCTIONS)) setFunction(L, name, fn);
  lua.lua_setfield(L, base, to_luastring('os'));

  // package: preload only (loadlib_safe.go), and require() that consults nothing else.
  lua.lua_createtable(L, 0, 4);
  const pkg = lua.lua_gettop(L);
  lua.lua_createtable(L, 0, 1);
  setFunction(L, 'kube', openKube);
  lua.lua_setfield(L, pkg, to_luastring('preload'));
  lua.lua_createtable(L, 0, 1);
  lua.lua_setfield(L, pkg, to_luastring('loaded'));
  lua.lua_createtable(L, 1, 0);
  lua.lua_pushvalue(L, pkg);
  lua.lua_pushcclosure(L, preloadLoader, 1);
  lua.lua_rawseti(L, -2, 1);
  lua.lua_setfield(L, pkg, to_luastring('loaders'));
  setFunction(L, 'loadlib', (Ls) => raise(Ls, 'loadlib is not supported'));
  lua.lua_pushvalue(L, pkg);
  lua.lua_setfield(L, base, to_luastring('package'));
  lua.lua_pushvalue(L, base);
  lua.lua_pushvalue(L, pkg);
  lua.lua_pushcclosure(L, requireModule, 1);
  lua.lua_setfield(L, -2, to_luastring('require'));
  lua.lua_pop(L, 1);

  // Load kube once now so the protected-table snapshot includes it.
  lua.lua_pushvalue(L, base);
  lua.lua_getfield(L, -1, to_luastring('require'));
  lua.lua_pushstring(L, to_luastring('kube'));
  lua.lua_call(L, 1, 1);
  const kubeIndex = lua.lua_gettop(L);

  const protectedRefs: number[] = [];
  const protect = (index: number) => {
    lua.lua_pushvalue(L, index);
    protectedRefs.push(lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX));
  };
  protect(base);
  protect(kubeIndex);
  protect(pkg);
  for (const name of ['string', 'table', 'math', 'os']) {
    lua.lua_getfield(L, base, to_luastring(name));
    protect(lua.lua_gettop(L));
    lua.lua_pop(L, 1);
  }
  for (const name of ['preload', 'loaded', 'loaders']) {
    lua.lua_getfield(L, pkg, to_luastring(name));
    protect(lua.lua_gettop(L));
    lua.lua_pop(L, 1);
  }

  lua.lua_pushvalue(L, base);
  const baseRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);

  // Nothing may reach fengari's own global table any more (chunks get a per-call _ENV).
  lua.lua_settop(L, 0);
  return { baseRef, protectedRefs };
}

/**
 * Pushes a new globals table for one call: a copy of every entry of `base` (the table behind
 * baseRef, as lua_topointer gives it), with `_G` set to the copy itself. gopher-lua keeps the base
 * functions in the globals table itself, so a script that assigns to a global named like one (Karmada's
 * FlinkDeployment script uses `error` as a variable) and later assigns nil removes it, and `pairs(_G)`
 * lists every library; an environment inheriting through `__index` would bring the built-in back instead.
 * The entries are appended to fengari's table object directly (36 of them; through the API each would
 * be two pushes and a rawset), with keys and values as new TValues: fengari marks a deleted key's
 * TValue dead in place, so the copy must not share them with `base`.
 */
export function pushFreshGlobals(L: any, base: any): void {
  lua.lua_createtable(L, 0, 0);
  const globals = lua.lua_topointer(L, -1);
  for (const [hash, entry] of base.strong as Map<unknown, { key: any; value: any }>) {
    appendEntry(globals, hash, new TValue(entry.key.type, entry.key.value), new TValue(entry.value.type, entry.value.value));
  }
  pushInterned(L, '_G');
  lua.lua_pushvalue(L, -2);
  lua.lua_rawset(L, -3);
}

const preloadLoader: CFunction = (L) => {
  const name = checkedString(L, 1);
  lua.lua_getfield(L, lua.lua_upvalueindex(1), to_luastring('preload'));
  if (lua.lua_type(L, -1) !== lua.LUA_TTABLE) raise(L, 'package.preload must be a table');
  lua.lua_getfield(L, -1, to_luastring(name));
  if (lua.lua_isnil(L, -1)) lua.lua_pushstring(L, to_luastring(`\n\tno field package.preload['${name}']`));
  return 1;
};

/**
 * gopher-lua's require over package.loaded and package.loaders (which only hold the preload loader).
 * The module name is used as the script's string itself (as Go does), and `loaded` is an interned
 * string: a script calls require("kube") on every call, and getfield made and hashed two new strings.
 */
const requireModule: CFunction = (L) => {
  lauxlib.luaL_checklstring(L, 1); // a number argument becomes a string in place, as in gopher-lua
  lua.lua_settop(L, 1);
  const pkg = lua.lua_upvalueindex(1);
  pushInterned(L, 'loaded');
  lua.lua_gettable(L, pkg); // 2
  lua.lua_pushvalue(L, 1);
  lua.lua_gettable(L, 2); // 3
  if (lua.lua_toboolean(L, 3)) return 1;
  lua.lua_pop(L, 1);
  const name = checkedString(L, 1);
  lua.lua_getfield(L, pkg, to_luastring('preload')); // 3
  if (lua.lua_type(L, 3) !== lua.LUA_TTABLE) raise(L, 'package.preload must be a table');
  lua.lua_pushvalue(L, 1);
  lua.lua_gettable(L, 3); // 4
  if (lua.lua_type(L, 4) !== lua.LUA_TFUNCTION) raise(L, `module ${name} not found:\n\tno field package.preload['${name}']`);
  lua.lua_pushvalue(L, 1);
  lua.lua_call(L, 1, 1); // 4: module value
  if (lua.lua_isnil(L, 4)) { lua.lua_pop(L, 1); lua.lua_pushboolean(L, true); }
  lua.lua_pushvalue(L, 1);
  lua.lua_pushvalue(L, 4);
  lua.lua_settable(L, 2);
  return 1;
};
