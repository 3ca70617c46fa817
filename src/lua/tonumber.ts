// gopher-lua's `tonumber` (baselib.go baseToNumber), which is not Lua's: the string is trimmed of
// " \n\t" only; if it contains "." it goes to Go's strconv.ParseFloat, otherwise to strconv.ParseInt
// in the given base (10 by default, 16 after a "0x" prefix when no base is given). So "1e3" and
// "1E5" are nil (ParseInt rejects exponents), "0x1p4" is nil, "1.5" with base 16 is 1.5, an
// integer beyond int64 is nil, and a number argument comes back unchanged whatever the base.
// Hand-written because Go's parsers are the reference and no library reproduces them.
import { lua, lauxlib, to_luastring } from './fengari.ts';

const utf8 = new TextDecoder('utf-8', { fatal: false });
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** strconv.ParseInt(s, base, 64) as a float64 (LNumber), or undefined where Go returns an error. */
export function goParseInt(input: string, base: number): number | undefined {
  let s = input;
  if (s === '') return undefined;
  let negative = false;
  if (s[0] === '+' || s[0] === '-') {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  const magnitude = goParseUint(s, base);
  if (magnitude === undefined) return undefined;
  if (!negative && magnitude > INT64_MAX) return undefined;
  if (negative && magnitude > INT64_MAX + 1n) return undefined;
  return Number(negative ? -magnitude : magnitude);
}

function goParseUint(input: string, requestedBase: number): bigint | undefined {
  if (input === '') return undefined;
  let s = input;
  let base = requestedBase;
  const base0 = base === 0;
  if (base0) {
    base = 10;
    if (s[0] === '0') {
      const prefix = s.length >= 3 ? s[1]!.toLowerCase() : '';
      if (prefix === 'b') [base, s] = [2, s.slice(2)];
      else if (prefix === 'o') [base, s] = [8, s.slice(2)];
      else if (prefix === 'x') [base, s] = [16, s.slice(2)];
      else [base, s] = [8, s.slice(1)];
    }
  } else if (base < 2 || base > 36) {
    return undefined;
  }
  let value = 0n;
  let underscores = false;
  for (const ch of s) {
    if (ch === '_' && base0) {
      underscores = true;
      continue;
    }
    const digit = digitValue(ch);
    if (digit === undefined || digit >= base) return undefined;
    value = value * BigInt(base) + BigInt(digit);
    if (value > UINT64_MAX) return undefined;
  }
  if (underscores && !underscoreOK(input)) return undefined;
  return value;
}

function digitValue(ch: string): number | undefined {
  const c = ch.toLowerCase().charCodeAt(0);
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 122) return c - 97 + 10;
  return undefined;
}

/** strconv's underscoreOK: with base 0, underscores may only separate digits (or follow a base prefix). */
function underscoreOK(input: string): boolean {
  let s = input;
  let saw = '^';
  let i = 0;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'box'.includes(s[1]!.toLowerCase())) {
    i = 2;
    saw = '0';
    hex = s[1]!.toLowerCase() === 'x';
  }
  for (; i < s.length; i++) {
    const ch = s[i]!;
    const lower = ch.toLowerCase();
    if ((ch >= '0' && ch <= '9') || (hex && lower >= 'a' && lower <= 'f')) {
      saw = '0';
      continue;
    }
    if (ch === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

const DECIMAL_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)[pP]([+-]?\d+)$/;
const SPECIAL_FLOAT = /^([+-]?)(inf|infinity|nan)$/i;

/**
 * strconv.ParseFloat(s, 64), or undefined where Go returns an error: bad syntax, or a finite
 * literal beyond float64 (ErrRange). "inf", "infinity" and "nan" are accepted as Go accepts them.
 * Underscores (allowed by Go only after a hex prefix) are not accepted.
 */
export function goParseFloat(s: string): number | undefined {
  const special = SPECIAL_FLOAT.exec(s);
  if (special) {
    if (special[2]!.toLowerCase() === 'nan') return NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  let value: number;
  if (DECIMAL_FLOAT.test(s)) {
    value = Number(s);
  } else {
    const hex = HEX_FLOAT.exec(s);
    if (!hex || hex[2]!.length + hex[3]!.length === 0) return undefined;
    const mantissa = BigInt(`0x${hex[2]! + hex[3]!}`);
    const exponent = Number(hex[4]) - 4 * hex[3]!.length;
    value = Number(mantissa) * 2 ** exponent;
    if (hex[1] === '-') value = -value;
  }
  return Number.isFinite(value) ? value : undefined;
}

/**
 * gopher-lua parseNumber (utils.go), used for numerals in source and for strings coerced to numbers
 * (arithmetic, number arguments of library functions): trimmed of " \t\n", then ParseInt with base
 * 0 (so "0x10" is 16, "010" is octal 8, "0b101" is 5, "1_000" is 1000), else ParseFloat.
 */
export function goParseNumber(input: string): number | undefined {
  const s = input.replace(/^[ \t\n]+|[ \t\n]+$/g, '');
  return goParseInt(s, 0) ?? goParseFloat(s);
}

/** gopher-lua baseToNumber. */
export function gopherToNumber(L: any): number {
  lauxlib.luaL_checkany(L, 1);
  const baseType = lua.lua_type(L, 2);
  const noBase = baseType === lua.LUA_TNONE || baseType === lua.LUA_TNIL;
  let base = 10;
  if (!noBase) {
    // OptInt: a number (truncated, as Go's int(LNumber)); anything else is a type error.
    if (baseType !== lua.LUA_TNUMBER) {
      const got = utf8.decode(lua.lua_typename(L, baseType));
      lauxlib.luaL_argerror(L, 2, to_luastring(`number expected, got ${got}`));
    }
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
        result = goParseInt(str, base);
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
