// gopher-lua's table library (tablelib.go) on top of `#` = its LTable.Len (engine/gopher-tables.ts): getn,
// insert, remove, concat and sort with its bounds, its results and its errors.
import { gopherArrayLength, guardAllocation, lua, lauxlib, markWritten, setGopherArrayLength, tableAt, to_luastring } from '../engine/index.ts';
import { goDecrement, goIntArg, goOptString, pushBytes, raise, typeName, type CFunction } from './args.ts';
import { goSort } from './go-sort.ts';
import { luaNumberToString } from './numbers.ts';

const EMPTY_BYTES = new Uint8Array(0);

/** LTable.Len of the table at `index` (a lazy table is materialized by its __len). */
function tableLength(L: any, index: number): number {
  return lauxlib.luaL_len(L, index);
}

/** t[key] = value on top of the stack (popped); keys beyond fengari's 32-bit integers as float keys. */
function setTableAt(L: any, table: number, key: number): void {
  if ((key | 0) === key) {
    lua.lua_seti(L, table, key);
    return;
  }
  lua.lua_pushnumber(L, key);
  lua.lua_insert(L, -2);
  lua.lua_settable(L, table);
}

/** table.getn and table.maxn are both LTable.Len in gopher-lua (the last non-nil array slot). */
export const tableGetn: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  lua.lua_pushnumber(L, tableLength(L, 1));
  return 1;
};

/**
 * tableInsert (table.go LTable.Append, Insert): with two arguments, append at `#t + 1` (a nil value is
 * ignored); with a position within gopher-lua's array part (its length counts trailing nil slots), shift
 * the slots from it up by one, the array growing by one; otherwise just set t[pos] (no "position out of
 * bounds" error). Extra arguments are ignored.
 */
export const tableInsert: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  const nargs = lua.lua_gettop(L);
  if (nargs === 1) raise(L, 'wrong number of arguments');
  if (nargs === 2) {
    if (lua.lua_isnil(L, 2)) return 0;
    const n = tableLength(L, 1);
    lua.lua_pushvalue(L, 2);
    setTableAt(L, 1, n + 1);
    return 0;
  }
  const position = goIntArg(L, 2);
  const n = tableLength(L, 1); // fills a lazy table before its array length is read
  const t = tableAt(L, 1);
  const arrayLength = Math.max(gopherArrayLength(t), n);
  if (position > arrayLength || position <= 0) {
    lua.lua_pushvalue(L, 3);
    setTableAt(L, 1, position);
    return 0;
  }
  // Slots above #t are nil: only the values from position to #t move.
  for (let i = n; i >= position; i--) {
    lua.lua_geti(L, 1, i);
    lua.lua_seti(L, 1, i + 1);
  }
  lua.lua_pushvalue(L, 3);
  lua.lua_seti(L, 1, position);
  setGopherArrayLength(t, Math.max(gopherArrayLength(t), arrayLength + 1));
  return 0;
};

/**
 * tableRemove (table.go LTable.Remove): on gopher-lua's array part, whose length counts the nil slots left
 * at its end (`t[#t] = nil`, `{1, 2, nil}`): without a position, or with one at its last slot or below 1,
 * the last slot is removed and its value returned, nil for a nil slot (so `#t` stays); a position past the
 * end removes nothing; otherwise the slots above shift down. Always one result (nil when nothing was removed).
 */
export const tableRemove: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  const position = lua.lua_gettop(L) === 1 ? -1 : goIntArg(L, 2);
  const n = tableLength(L, 1); // fills a lazy table before its array length is read
  lua.lua_settop(L, 1);
  const t = tableAt(L, 1);
  const arrayLength = Math.max(gopherArrayLength(t), n);
  if (arrayLength === 0) {
    lua.lua_pushnil(L);
    return 1;
  }
  const i = goDecrement(position);
  if (i >= arrayLength) {
    lua.lua_pushnil(L);
    return 1;
  }
  if (i === arrayLength - 1 || i < 0) {
    lua.lua_geti(L, 1, arrayLength);
    lua.lua_pushnil(L);
    lua.lua_seti(L, 1, arrayLength);
  } else {
    lua.lua_geti(L, 1, position); // the result, kept at index 2
    // Slots above #t are nil: only the values up to #t move.
    for (let k = position; k < n; k++) {
      lua.lua_geti(L, 1, k + 1);
      lua.lua_seti(L, 1, k);
    }
    if (position <= n) {
      lua.lua_pushnil(L);
      lua.lua_seti(L, 1, n);
    }
  }
  setGopherArrayLength(t, arrayLength - 1);
  return 1;
};

/**
 * tableConcat: i and j are clamped into [1, #t] (an i alone outside it gives ""), so a range past the
 * end is not an error; numbers print as tostring does; other values raise. The result's length is known
 * before it is made: reserved, then written once.
 */
export const tableConcat: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  const separator = goOptString(L, 2, EMPTY_BYTES);
  const length = tableLength(L, 1);
  let i = goIntArg(L, 3, 1);
  let j = goIntArg(L, 4, length);
  if (lua.lua_gettop(L) === 3 && (i > length || i < 1)) {
    lua.lua_pushstring(L, EMPTY_BYTES);
    return 1;
  }
  i = Math.max(Math.min(i, length), 1);
  j = Math.min(j, length);
  if (i > j) {
    lua.lua_pushstring(L, EMPTY_BYTES);
    return 1;
  }
  const parts: Uint8Array[] = [];
  let total = separator.length * (j - i);
  for (let k = i; k <= j; k++) {
    const type = lua.lua_geti(L, 1, k);
    let part: Uint8Array;
    if (type === lua.LUA_TNUMBER) part = to_luastring(luaNumberToString(lua.lua_tonumber(L, -1)));
    else if (type === lua.LUA_TSTRING) part = lua.lua_tolstring(L, -1);
    else raise(L, `invalid value (${typeName(L, -1)}) at index ${k} in table for concat`);
    lua.lua_pop(L, 1);
    parts.push(part);
    total += part.length;
  }
  guardAllocation(L, total);
  const out = new Uint8Array(total);
  let at = 0;
  parts.forEach((part, k) => {
    if (k > 0) {
      out.set(separator, at);
      at += separator.length;
    }
    out.set(part, at);
    at += part.length;
  });
  pushBytes(L, out);
  return 1;
};

/**
 * tableSort: gopher-lua sorts its whole array part in place, trailing nil slots included, with Go's
 * sort.Sort (go-sort.ts): never "invalid order function for sorting" for an inconsistent comparator (e.g.
 * `a.x <= b.x`), equal elements left where Go's pdqsort leaves them, a nil slot compared like any value
 * (an error without a comparator, the comparator's argument with one), and the swaps made before an error
 * kept. The Lua comparator runs under the count hook.
 */
export const tableSort: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  const hasComparator = lua.lua_gettop(L) !== 1;
  if (hasComparator) lauxlib.luaL_checktype(L, 2, lua.LUA_TFUNCTION);
  const length = lauxlib.luaL_len(L, 1); // fills a lazy table before its array length is read
  const n = Math.max(gopherArrayLength(tableAt(L, 1)), length);
  lua.lua_settop(L, 2);
  // lua_rawseti, unlike the VM's writes, does not mark the table written (state.ts relies on the mark);
  // marked first, since a comparator's error can stop the sort after some swaps.
  markWritten(tableAt(L, 1));
  goSort(
    {
      less(i, j) {
        if (hasComparator) lua.lua_pushvalue(L, 2);
        lua.lua_rawgeti(L, 1, i + 1);
        lua.lua_rawgeti(L, 1, j + 1);
        if (hasComparator) {
          lua.lua_call(L, 2, 1);
          const result = lua.lua_toboolean(L, -1);
          lua.lua_pop(L, 1);
          return result;
        }
        const result = lua.lua_compare(L, -2, -1, lua.LUA_OPLT);
        lua.lua_pop(L, 2);
        return result;
      },
      swap(i, j) {
        lua.lua_rawgeti(L, 1, i + 1);
        lua.lua_rawgeti(L, 1, j + 1);
        lua.lua_rawseti(L, 1, i + 1);
        lua.lua_rawseti(L, 1, j + 1);
      },
    },
    n,
  );
  return 0;
};
