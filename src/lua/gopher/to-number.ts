// gopher-lua's `tonumber` (baselib.go baseToNumber), which is not Lua's: a string is trimmed of " \n\t" only,
// read by Go's strconv.ParseFloat if it contains ".", otherwise by ParseInt in the given base.
import { goParseFloat } from '../../go/strconv.ts';
import { lua, lauxlib } from '../engine/index.ts';
import { typeError } from './args.ts';
import { goParseIntNumber } from './numbers.ts';

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * gopher-lua baseToNumber: the base is 10 by default, 16 after a "0x" prefix when none is given. So "1e3"
 * and "1E5" are nil (ParseInt rejects exponents), "0x1p4" is nil, "1.5" with base 16 is 1.5, an integer
 * beyond int64 is nil, and a number argument comes back unchanged whatever the base.
 */
export function gopherToNumber(L: any): number {
  lauxlib.luaL_checkany(L, 1);
  const baseType = lua.lua_type(L, 2);
  const noBase = baseType === lua.LUA_TNONE || baseType === lua.LUA_TNIL;
  let base = 10;
  if (!noBase) {
    // OptInt: a number (truncated, as Go's int(LNumber)); anything else is a type error.
    if (baseType !== lua.LUA_TNUMBER) typeError(L, 2, 'number');
    base = Math.trunc(lua.lua_tonumber(L, 2));
  }
  switch (lua.lua_type(L, 1)) {
    case lua.LUA_TNUMBER:
      lua.lua_pushvalue(L, 1);
      return 1;
    case lua.LUA_TSTRING: {
      let str = utf8.decode(lua.lua_tolstring(L, 1)).replace(/^[ \n\t]+|[ \n\t]+$/g, '');
      let result: number | undefined;
      if (str.includes('.')) {
        result = goParseFloat(str);
      } else {
        if (noBase && str.toLowerCase().startsWith('0x')) [base, str] = [16, str.slice(2)];
        result = goParseIntNumber(str, base);
      }
      if (result === undefined) lua.lua_pushnil(L);
      else lua.lua_pushnumber(L, result);
      return 1;
    }
    default:
      lua.lua_pushnil(L);
      return 1;
  }
}
