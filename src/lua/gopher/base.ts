// gopher-lua's base functions where they are not fengari's (baselib.go): tostring and print format values
// as gopher-lua does (numbers with Go's fmt, a string as itself), and tonumber is its baseToNumber.
import { guardAllocation, lua, lauxlib, to_luastring } from '../engine/index.ts';
import { luaToJsString, type CFunction } from './args.ts';
import { luaNumberToString } from './numbers.ts';
import { gopherToNumber } from './to-number.ts';

/** Lua 5.1 tostring/print formatting of any value (numbers as gopher-lua prints them). */
export function luaValueToString(L: any, index: number): string {
  if (lua.lua_type(L, index) === lua.LUA_TNUMBER) return luaNumberToString(lua.lua_tonumber(L, index));
  lauxlib.luaL_tolstring(L, index);
  const text = luaToJsString(L, -1);
  lua.lua_pop(L, 1);
  return text;
}

/** A string is its own string (gopher-lua's LString.String()): the same value, bytes untouched. */
export const tostring: CFunction = (L) => {
  lauxlib.luaL_checkany(L, 1);
  if (lua.lua_type(L, 1) === lua.LUA_TSTRING) lua.lua_pushvalue(L, 1);
  else lua.lua_pushstring(L, to_luastring(luaValueToString(L, 1)));
  return 1;
};

export const tonumber: CFunction = (L) => {
  // The string is decoded (two bytes a character at most), trimmed and lowercased: three copies.
  if (lua.lua_type(L, 1) === lua.LUA_TSTRING) guardAllocation(L, 6 * lua.lua_rawlen(L, 1));
  return gopherToNumber(L);
};

/** `print`: its arguments' tostring joined by tabs, one line, given to the function `onPrint` returns at the time. */
export function print(onPrint: () => ((line: string) => void) | undefined): CFunction {
  return (L) => {
    // The line is built whole (the worker keeps its first KiB): its text (two bytes a character at
    // most) and the joined line.
    let bytes = 0;
    for (let i = 1, top = lua.lua_gettop(L); i <= top; i++) if (lua.lua_type(L, i) === lua.LUA_TSTRING) bytes += lua.lua_rawlen(L, i);
    guardAllocation(L, 4 * bytes);
    const parts: string[] = [];
    for (let i = 1, top = lua.lua_gettop(L); i <= top; i++) parts.push(luaValueToString(L, i));
    onPrint()?.(parts.join('\t'));
    return 0;
  };
}
