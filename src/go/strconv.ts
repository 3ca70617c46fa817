// gopher-lua's `tonumber` (baselib.go baseToNumber), which is not Lua's: the string is trimmed of
// " \n\t" only; if it contains "." it goes to Go's strconv.ParseFloat, otherwise to strconv.ParseInt
// in the given base (10 by default, 16 after a "0x" prefix when no base is given). So "1e3" and
// "1E5" are nil (ParseInt rejects exponents), "0x1p4" is nil, "1.5" with base 16 is 1.5, an
// integer beyond int64 is nil, and a number argument comes back unchanged whatever the base.
// Hand-written because Go's parsers are the reference and no library reproduces them.
import { lua, lauxlib, to_luastring } from '../lua/fengari.ts';

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

/**
 * strconv.ParseFloat(s, 64), or undefined where Go returns an error: bad syntax, or a finite literal
 * beyond float64 (ErrRange); a literal too small for float64 is 0. Decimal and hexadecimal (with a
 * mandatory p exponent) forms, underscores only between digits (readFloat + underscoreOK), "inf",
 * "infinity" (signed or not) and "nan" (unsigned), in any case.
 */
export function goParseFloat(s: string): number | undefined {
  const special = /^([+-]?)(inf|infinity)$/i.exec(s);
  if (special) return special[1] === '-' ? -Infinity : Infinity;
  if (/^nan$/i.test(s)) return NaN;
  const syntax = readFloat(s);
  if (syntax === undefined) return undefined;
  let value: number;
  if (!syntax.hex) {
    value = Number(syntax.mantissa + 'e' + syntax.exponent);
  } else {
    value = hexToFloat(BigInt('0x' + (syntax.mantissa || '0')), syntax.exponent);
  }
  if (syntax.negative) value = -value;
  return Number.isFinite(value) ? value : undefined;
}

/**
 * readFloat's syntax check: [+-] digits [. digits] [e|E [+-] digits], or 0x hexdigits [. hexdigits]
 * p [+-] digits; at least one mantissa digit. Returns the mantissa digits (point removed, underscores
 * dropped) and the exponent to apply to them (decimal, or binary for hex).
 */
function readFloat(s: string): { negative: boolean; hex: boolean; mantissa: string; exponent: number } | undefined {
  let i = 0;
  let negative = false;
  if (s[i] === '+' || s[i] === '-') { negative = s[i] === '-'; i++; }
  let hex = false;
  if (i + 2 < s.length && s[i] === '0' && (s[i + 1] === 'x' || s[i + 1] === 'X')) { hex = true; i += 2; }
  const isDigit = (c: string | undefined) => c !== undefined && (hex ? /[0-9a-fA-F]/.test(c) : c >= '0' && c <= '9');
  let mantissa = '';
  let fractionDigits = 0;
  let sawDot = false;
  let sawDigits = false;
  let underscores = false;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === '_') { underscores = true; continue; }
    if (c === '.') { if (sawDot) break; sawDot = true; continue; }
    if (!isDigit(c)) break;
    sawDigits = true;
    mantissa += c;
    if (sawDot) fractionDigits++;
  }
  if (!sawDigits) return undefined;
  let exponent = 0;
  if (i < s.length && (s[i] === (hex ? 'p' : 'e') || s[i] === (hex ? 'P' : 'E'))) {
    i++;
    if (i >= s.length) return undefined;
    let sign = 1;
    if (s[i] === '+') i++;
    else if (s[i] === '-') { sign = -1; i++; }
    if (i >= s.length || s[i]! < '0' || s[i]! > '9') return undefined;
    let e = 0;
    for (; i < s.length && ((s[i]! >= '0' && s[i]! <= '9') || s[i] === '_'); i++) {
      if (s[i] === '_') { underscores = true; continue; }
      if (e < 10000) e = e * 10 + s.charCodeAt(i) - 48;
    }
    exponent = sign * e;
  } else if (hex) {
    return undefined; // a hex mantissa needs its p exponent
  }
  if (i !== s.length) return undefined;
  if (underscores && !underscoreOK(s)) return undefined;
  return { negative, hex, mantissa, exponent: exponent - (hex ? 4 : 1) * fractionDigits };
}

/** mantissa × 2^exponent rounded once to float64 (halves to even), Infinity beyond the range. */
function hexToFloat(mantissa: bigint, exponent: number): number {
  if (mantissa === 0n) return 0;
  const bits = mantissa.toString(2).length;
  const top = bits - 1 + exponent; // the value's binary exponent
  if (top > 1023) return Infinity;
  // Keep 53 bits, fewer for a subnormal result (nothing below 2^-1074).
  const keep = Math.min(53, top + 1074 + 1);
  if (keep <= 0) {
    // below half the smallest subnormal, or exactly half of it (rounds to even: 0)
    return keep === 0 && mantissa !== 1n << BigInt(bits - 1) ? 2 ** -1074 : 0;
  }
  const shift = bits - keep;
  if (shift <= 0) return Number(mantissa) * 2 ** exponent; // exact
  const big = BigInt(shift);
  let kept = mantissa >> big;
  const rest = mantissa - (kept << big);
  const half = 1n << (big - 1n);
  if (rest > half || (rest === half && (kept & 1n) === 1n)) kept += 1n;
  return Number(kept) * 2 ** (exponent + shift);
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
