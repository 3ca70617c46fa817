// Lua patterns as gopher-lua's string.find, match and gmatch use them (stringlib.go over its pm package):
// gopher-lua's index rules and match order around fengari's matcher, the pattern read as pm reads it.
import { lua, lauxlib } from '../engine/index.ts';
import { goDecrement, goIntArg, raise, type CFunction } from './args.ts';
import { stringIndex } from './string.ts';

const PERCENT = 0x25;
/** Class letters gopher-lua's pm does not know (`%g`) or does not treat as a class (`%f`, Lua 5.2's frontier). */
const NOT_GOPHER_CLASSES = new Set([0x67 /* g */, 0x47 /* G */, 0x66 /* f */]);

/**
 * The pattern as gopher-lua's pm reads it (pm.go parsePattern, parseClass): `%g`, `%G` and `%f` are the
 * letters themselves there, where fengari matches printable characters or a frontier. Undefined when
 * nothing changes. `%b` takes the next two characters as they are, outside sets.
 */
function gopherPattern(pattern: Uint8Array): Uint8Array | undefined {
  if (!mayHaveNonGopherClass(pattern)) return undefined;
  const out: number[] = [];
  let changed = false;
  let inSet = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === PERCENT && i + 1 < pattern.length) {
      const next = pattern[i + 1]!;
      if (NOT_GOPHER_CLASSES.has(next)) {
        changed = true;
        out.push(next);
      } else {
        const width = next === 0x62 /* b */ && !inSet ? 4 : 2;
        out.push(...pattern.subarray(i, i + width));
        i += width - 2;
      }
      i++;
      continue;
    }
    out.push(c);
    if (!inSet && c === 0x5b /* [ */) {
      inSet = true;
      // A "]" right after "[" or "[^" is a member, not the end.
      if (pattern[i + 1] === 0x5e /* ^ */) out.push(pattern[++i]!);
      if (pattern[i + 1] === 0x5d /* ] */) out.push(pattern[++i]!);
    } else if (inSet && c === 0x5d /* ] */) {
      inSet = false;
    }
  }
  return changed ? Uint8Array.from(out) : undefined;
}

/** Whether a `%` (not one of a `%%` pair) is followed by g, G or f: most patterns are left as they are at once. */
function mayHaveNonGopherClass(pattern: Uint8Array): boolean {
  for (let i = pattern.indexOf(PERCENT); i !== -1 && i + 1 < pattern.length; i = pattern.indexOf(PERCENT, i + 2)) {
    if (NOT_GOPHER_CLASSES.has(pattern[i + 1]!)) return true;
  }
  return false;
}

/** Replaces the pattern at `index` with gopherPattern's reading of it. */
function usePmPattern(L: any, index: number): void {
  const pattern = gopherPattern(lua.lua_tolstring(L, index) as Uint8Array);
  if (pattern === undefined) return;
  lua.lua_pushstring(L, pattern);
  lua.lua_replace(L, index);
}

/**
 * strFind: an empty pattern finds (1, 0) whatever the init; the init is luaIndex2StringIndex's (not
 * clamped to the end); past the end a pattern search finds nothing and a plain one raises Go's slice
 * error; `plain` counts only as the fourth of exactly four arguments.
 */
export function stringFind(find: CFunction): CFunction {
  return (L) => {
    lauxlib.luaL_checklstring(L, 1);
    lauxlib.luaL_checklstring(L, 2);
    const length = lua.lua_rawlen(L, 1);
    if (lua.lua_rawlen(L, 2) === 0) {
      lua.lua_pushnumber(L, 1);
      lua.lua_pushnumber(L, 0);
      return 2;
    }
    const init = stringIndex(length, goIntArg(L, 3, 1), true);
    const plain = lua.lua_gettop(L) === 4 && lua.lua_toboolean(L, 4);
    if (init > length) {
      if (plain) raise(L, `runtime error: slice bounds out of range [${init}:${length}]`);
      lua.lua_pushnil(L);
      return 1;
    }
    lua.lua_settop(L, 2);
    if (!plain) usePmPattern(L, 2);
    lua.lua_pushinteger(L, init + 1);
    lua.lua_pushboolean(L, plain);
    return find(L);
  };
}

/** strMatch: a negative init counts from the end, then clamps at the start; no match returns no value. */
export function stringMatch(match: CFunction): CFunction {
  return (L) => {
    lauxlib.luaL_checklstring(L, 1);
    lauxlib.luaL_checklstring(L, 2);
    const length = lua.lua_rawlen(L, 1);
    let offset = goIntArg(L, 3, 1);
    if (offset < 0) offset = length + offset + 1;
    offset = Math.max(goDecrement(offset), 0);
    if (offset > length) return 0;
    lua.lua_settop(L, 2);
    usePmPattern(L, 2);
    lua.lua_pushinteger(L, offset + 1);
    const results = match(L);
    if (results === 1 && lua.lua_isnil(L, -1)) return 0;
    return results;
  };
}

/**
 * strGmatch over pm.Find: every match from the start, each search beginning where the last match ended
 * (one further after an empty match), so "[^,]*" over "a,b" gives "a", "", "b", "" as in Lua 5.1 (Lua
 * 5.3's gmatch skips an empty match right after a match). A pattern starting with "^" is anchored: at
 * most one match, at the start. Each step runs fengari's find from the next position.
 */
export function stringGmatch(find: CFunction): CFunction {
  return (L) => {
    lauxlib.luaL_checklstring(L, 1);
    lauxlib.luaL_checklstring(L, 2);
    const anchored = (lua.lua_tolstring(L, 2) as Uint8Array)[0] === 0x5e;
    lua.lua_settop(L, 2);
    usePmPattern(L, 2);
    let position = 0;
    let done = false;
    lua.lua_pushcclosure(
      L,
      (Ls: any) => {
        if (done) return 0;
        const length = lua.lua_rawlen(Ls, lua.lua_upvalueindex(1));
        if (position > length) {
          done = true;
          return 0;
        }
        const base = lua.lua_gettop(Ls);
        lua.lua_pushcfunction(Ls, find);
        lua.lua_pushvalue(Ls, lua.lua_upvalueindex(1));
        lua.lua_pushvalue(Ls, lua.lua_upvalueindex(2));
        lua.lua_pushinteger(Ls, position + 1);
        lua.lua_pushboolean(Ls, false);
        lua.lua_call(Ls, 4, lua.LUA_MULTRET);
        if (anchored) done = true;
        if (lua.lua_isnil(Ls, base + 1)) {
          done = true;
          return 0;
        }
        const start = lua.lua_tointeger(Ls, base + 1);
        const end = lua.lua_tointeger(Ls, base + 2);
        position = Math.max(start, end);
        const captures = lua.lua_gettop(Ls) - base - 2;
        if (captures > 0) return captures;
        const bytes = lua.lua_tolstring(Ls, lua.lua_upvalueindex(1)) as Uint8Array;
        lua.lua_pushstring(Ls, bytes.subarray(start - 1, end));
        return 1;
      },
      2,
    );
    return 1;
  };
}
