// Lazy JSON -> Lua conversion. A JS object or array becomes an empty Lua table with a shared
// metatable; the first time a script (or a library function) touches it in any way — reads or writes
// a key, `#`, pairs, next, ipairs, table.* — the table is materialized one level deep into exactly the
// table eager pushJson builds (same keys and values, same insertion order, so the same iteration order
// and `#`), its nested objects and arrays being lazy tables themselves, and the metatable is dropped.
// Scripts cannot see the metatable (Karmada's sandbox makes
// getmetatable/setmetatable/raw* raise), and a table is plain before any of its contents is observed,
// so scripts behave exactly as with eager conversion. encodeLuaValue (convert.ts) encodes a table that
// was never touched straight from its JS value.
import { lua, lauxlib, lobject, luaS_bless, to_luastring } from './fengari.js';

/** Never-touched lazy tables (by fengari table object, lua_topointer) and the JS objects they stand for. */
export const lazyTables = new WeakMap<object, object>();

const utf8 = new TextDecoder('utf-8', { fatal: false });

// Object keys and most short values repeat across requests (apiVersion, metadata, "True", names of
// the same objects polled again). fengari makes a new string object per push and re-hashes it on every
// table store; reusing one immutable string object per text (its hash is cached on it) saves that.
const KEY_CACHE_LIMIT = 8192;
const keyCache = new Map<string, unknown>();

export function pushInterned(L: unknown, key: string): void {
  let interned = keyCache.get(key);
  if (interned === undefined) {
    interned = luaS_bless(L, to_luastring(key));
    if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
    if (key.length <= 128) keyCache.set(key, interned);
  }
  lobject.pushsvalue2s(L, interned);
}

/** The text a JS string has after a trip through Lua (to_luastring, then lenient UTF-8 decoding). */
export function luaRoundTrip(text: string): string {
  // String.prototype.isWellFormed is in Node 20; the project's TS lib predates it.
  return (text as string & { isWellFormed(): boolean }).isWellFormed() ? text : utf8.decode(to_luastring(text));
}

/** Pushes a JSON-shaped value; objects and arrays become lazy tables with the metatable at stack index `meta`. */
function pushValue(L: any, value: unknown, meta: number): void {
  if (value === null || value === undefined) {
    lua.lua_pushnil(L);
  } else if (typeof value === 'boolean') {
    lua.lua_pushboolean(L, value);
  } else if (typeof value === 'number') {
    lua.lua_pushnumber(L, value);
  } else if (typeof value === 'string') {
    pushInterned(L, value);
  } else if (typeof value === 'object') {
    lua.lua_createtable(L, 0, 0);
    lua.lua_pushvalue(L, meta);
    lua.lua_setmetatable(L, -2);
    lazyTables.set(lua.lua_topointer(L, -1), value as object);
  } else {
    throw new TypeError(`cannot pass a ${typeof value} to Lua`);
  }
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

/**
 * Fills the lazy table at `index` (if it is one) with its value's entries, as pushJson does (null
 * values skipped; nested objects and arrays lazy), and drops the metatable: from now on it is a plain table.
 */
export function materialize(L: any, index: number): void {
  const identity = lua.lua_topointer(L, index);
  const object = lazyTables.get(identity);
  if (object === undefined) return;
  lazyTables.delete(identity);
  const table = lua.lua_absindex(L, index);
  lauxlib.luaL_checkstack(L, 4, 'object too deep');
  lua.lua_getmetatable(L, table);
  const meta = lua.lua_gettop(L);
  if (Array.isArray(object)) {
    // Null elements are skipped and later ones shift down, as gopher-json decodes.
    let position = 0;
    for (const item of object) {
      if (item === null || item === undefined) continue;
      pushValue(L, item, meta);
      lua.lua_rawseti(L, table, ++position);
    }
  } else {
    for (const key of Object.keys(object)) {
      const item = (object as Record<string, unknown>)[key];
      if (item === null || item === undefined) continue;
      pushInterned(L, key);
      pushValue(L, item, meta);
      lua.lua_rawset(L, table);
    }
  }
  lua.lua_pushnil(L);
  lua.lua_setmetatable(L, table);
  lua.lua_settop(L, meta - 1);
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
