// Lazy JSON -> Lua conversion of call arguments and kube results: a JS object or array becomes an empty
// table with a shared metatable, filled one level deep, exactly as eager pushJson (convert.ts) fills it, the
// first time anything touches it; `next` and `pairs` for scripts, which fill it first too.
import {
  appendIntegerEntry,
  appendStringEntry,
  lazyValueOf,
  lua,
  lauxlib,
  luaBoolean,
  luaFloat,
  luaStringValue,
  luaTableValue,
  markWritten,
  metatableOf,
  newString,
  newTable,
  pushString,
  setLazyValue,
  setRawMetatable,
  stateData,
  tableAt,
  to_luastring,
  type LuaString,
  type LuaTable,
  type LuaValue,
} from '../engine/index.ts';
import type { CFunction } from '../gopher/args.ts';

// The first touch — reading or writing a key, `#`, pairs, next, ipairs, table.* — materializes the table
// (same keys and values, same insertion order, so the same iteration order and `#`), its nested objects
// and arrays being lazy tables themselves, and drops the metatable. Scripts cannot see the metatable
// (Karmada's sandbox makes getmetatable/setmetatable/raw* raise), and a table is plain before any of its
// contents is observed, so scripts behave exactly as with eager conversion. The encoder (convert.ts)
// encodes a table that was never touched straight from its JS value.

// ignoreBOM: a string starting with U+FEFF keeps it (TextDecoder drops a leading BOM by default; Go's
// strings are bytes, so Karmada's Lua gives it back).
const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

// Object keys and most short values repeat across requests (apiVersion, metadata, "True", names of
// the same objects polled again). fengari makes a new string object per push and re-hashes it on every
// table store; reusing one immutable string object per text (its hash is cached on it) saves that.
const KEY_CACHE_LIMIT = 8192;
const keyCache = new Map<string, LuaString>();

function interned(L: unknown, text: string): LuaString {
  let string = keyCache.get(text);
  if (string === undefined) {
    string = newString(L, to_luastring(text));
    if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
    if (text.length <= 128) keyCache.set(text, string);
  }
  return string;
}

export function pushInterned(L: unknown, text: string): void {
  pushString(L, interned(L, text));
}

/**
 * The text a JS string has after a trip through Lua (to_luastring, then the encoder's lenient UTF-8
 * decoding): itself, unless it has lone surrogates (each becomes three U+FFFD). Call arguments never have
 * any: they are decoded as Go does first (src/protocol/go-json.ts).
 */
export function luaRoundTrip(text: string): string {
  // String.prototype.isWellFormed is in Node 20; the project's TS lib predates it.
  if ((text as string & { isWellFormed(): boolean }).isWellFormed()) return text;
  return utf8.decode(to_luastring(text));
}

/** Pushes null/undefined (as nil), a boolean, a number or a string; false for anything else. */
export function pushScalar(L: any, value: unknown): boolean {
  if (value === null || value === undefined) lua.lua_pushnil(L);
  else if (typeof value === 'boolean') lua.lua_pushboolean(L, value);
  else if (typeof value === 'number') lua.lua_pushnumber(L, value);
  else if (typeof value === 'string') pushInterned(L, value);
  else return false;
  return true;
}

/** Pushes a JSON-shaped value; objects and arrays become lazy tables with the metatable at stack index `meta`. */
function pushValue(L: any, value: unknown, meta: number): void {
  if (pushScalar(L, value)) return;
  if (typeof value === 'object') {
    lua.lua_createtable(L, 0, 0);
    lua.lua_pushvalue(L, meta);
    lua.lua_setmetatable(L, -2);
    setLazyValue(tableAt(L, -1), value as object);
  } else {
    throw new TypeError(`cannot pass a ${typeof value} to Lua`);
  }
}

/**
 * Makes the JS functions of state `L` (the kube module) push their results lazily too, with the
 * metatable at registry reference `metaRef`; kept on fengari's global state object, shared by its threads.
 */
export function useLazyResults(L: any, metaRef: number): void {
  stateData(L).lazyResultsMetaRef = metaRef;
}

/** The metatable reference useLazyResults gave this state, or undefined: push results eagerly. */
export function lazyResultsMetaRef(L: any): number | undefined {
  return stateData(L).lazyResultsMetaRef;
}

/** Pushes `value` as pushJson would, lazily; `metaRef` is the registry reference from createLazyMetatable. */
export function pushLazyJson(L: any, value: unknown, metaRef: number): void {
  if (typeof value !== 'object' || value === null) {
    pushValue(L, value, 0);
    return;
  }
  lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, metaRef);
  const meta = lua.lua_gettop(L);
  pushValue(L, value, meta);
  lua.lua_remove(L, meta);
}

/** The TValue pushValue would push for a non-null `item` (objects and arrays: new lazy tables). */
function toTValue(L: any, item: unknown, meta: LuaTable): LuaValue {
  switch (typeof item) {
    case 'boolean':
      return luaBoolean(item);
    case 'number': // lua_pushnumber: always a float
      return luaFloat(item);
    case 'string':
      return luaStringValue(interned(L, item));
    case 'object': {
      const table = newTable(L);
      setRawMetatable(table, meta);
      setLazyValue(table, item as object);
      return luaTableValue(table);
    }
    default:
      throw new TypeError(`cannot pass a ${typeof item} to Lua`);
  }
}

/**
 * Fills the lazy table at `index` (if it is one) with its value's entries, as pushJson does (null
 * values skipped, array elements shifted down; nested objects and arrays lazy), and drops the
 * metatable: from now on it is a plain table. A lazy table has had no key before (any access
 * materializes it first), so entries are appended directly, as luaH_setint / luaH_setfrom would add
 * them (integer keys for array elements, string keys hashed as table_hash does). Distinct object keys
 * are distinct Lua strings: to_luastring encodes every code point, lone surrogates included, as its
 * own UTF-8 sequence.
 */
export function materialize(L: any, index: number): void {
  const table = tableAt(L, index);
  const value = lazyValueOf(table);
  if (value === undefined) return;
  setLazyValue(table, undefined);
  const meta = metatableOf(table)!;
  if (Array.isArray(value)) {
    let position = 0;
    for (const item of value) {
      if (item === null || item === undefined) continue;
      position++;
      appendIntegerEntry(table, position, toTValue(L, item, meta));
    }
  } else {
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      if (item === null || item === undefined) continue;
      appendStringEntry(table, interned(L, key), toTValue(L, item, meta));
    }
  }
  markWritten(table);
  setRawMetatable(table, null);
}

// --- the metatable: each metamethod materializes, then does what the VM does with a plain table ---

const lazyIndex = (L: any): number => {
  materialize(L, 1);
  lua.lua_settop(L, 2);
  lua.lua_rawget(L, 1);
  return 1;
};

const lazyNewIndex = (L: any): number => {
  materialize(L, 1);
  const keyType = lua.lua_type(L, 2);
  if (keyType === lua.LUA_TNIL || (keyType === lua.LUA_TNUMBER && Number.isNaN(lua.lua_tonumber(L, 2)))) {
    // The VM's own error (raised even when assigning nil), positioned at the script's line as the VM
    // positions it; lua_rawset from here would raise it without a position.
    lauxlib.luaL_error(L, to_luastring(keyType === lua.LUA_TNIL ? 'table index is nil' : 'table index is NaN'));
  }
  lua.lua_settop(L, 3);
  lua.lua_rawset(L, 1);
  return 0;
};

const lazyLen = (L: any): number => {
  materialize(L, 1);
  lua.lua_pushinteger(L, lua.lua_rawlen(L, 1));
  return 1;
};

/** Creates the shared metatable of lazy tables in this state; returns its registry reference. */
export function createLazyMetatable(L: any): number {
  lua.lua_createtable(L, 0, 3);
  lua.lua_pushcfunction(L, lazyIndex);
  lua.lua_setfield(L, -2, to_luastring('__index'));
  lua.lua_pushcfunction(L, lazyNewIndex);
  lua.lua_setfield(L, -2, to_luastring('__newindex'));
  lua.lua_pushcfunction(L, lazyLen);
  lua.lua_setfield(L, -2, to_luastring('__len'));
  return lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
}

// --- `next` and `pairs`: they see every key, so a lazy table is materialized first. Otherwise they are
// fengari's (pairs without __pairs: no table a script can reach has a metatable of its own), in
// gopher-lua's order (engine/gopher-tables.ts) ---

export const next: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  materialize(L, 1);
  lua.lua_settop(L, 2);
  if (lua.lua_next(L, 1) !== 0) return 2;
  lua.lua_pushnil(L);
  return 1;
};

export const pairs: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  materialize(L, 1);
  lua.lua_pushcfunction(L, next);
  lua.lua_pushvalue(L, 1);
  lua.lua_pushnil(L);
  return 3;
};
