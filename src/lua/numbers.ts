// Lua 5.1 / gopher-lua number semantics on top of fengari (Lua 5.3, 32-bit integers).
// gopher-lua has only float64 numbers and prints them with Go's fmt; scripts written for Karmada
// rely on that (`tostring(3) == "3"`, `"x" .. 1e15 == "x1000000000000000"`, no integer wrap).
import { lobject, lvm, to_luastring, luaS_bless } from './fengari.ts';
import { goParseNumber } from './tonumber.ts';

// Numerals are ASCII; bytes map 1:1 so a stray high byte can never parse as a digit.
const latin1 = new TextDecoder('latin1');

const TWO_POW_63 = 2 ** 63;

/** gopher-lua isInteger: float64(v) == float64(int64(v)) on amd64 (out-of-range converts to MinInt64). */
export function isGoInteger(x: number): boolean {
  return Number.isInteger(x) && x >= -TWO_POW_63 && x < TWO_POW_63;
}

/** Go int64(float64) conversion as amd64 does it: truncation, MinInt64 for NaN and out-of-range. */
export function goInt64(x: number): bigint {
  if (!Number.isFinite(x) || x >= TWO_POW_63 || x < -TWO_POW_63) return -(2n ** 63n);
  return BigInt(Math.trunc(x));
}

/** Shortest round-trip decimal digits and decimal exponent of a finite non-zero |x|. */
function shortestDigits(x: number): { digits: string; exp: number } {
  const [mantissa, exponent] = Math.abs(x).toExponential().split('e');
  return { digits: mantissa.replace('.', ''), exp: Number(exponent) };
}

function goExponent(exp: number): string {
  const sign = exp < 0 ? '-' : '+';
  const abs = Math.abs(exp);
  return `e${sign}${abs < 10 ? '0' : ''}${abs}`;
}

/** Go fmt %v of a float64 (strconv 'g' with shortest digits): exponent form when exp < -4 || exp >= 6. */
export function goFloatV(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const { digits, exp } = shortestDigits(x);
  const sign = x < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    return `${sign}${digits[0]}${digits.length > 1 ? '.' + digits.slice(1) : ''}${goExponent(exp)}`;
  }
  // Here 1e-4 <= |x| < 1e6: JS prints the same shortest digits in fixed notation.
  return String(x);
}

/** gopher-lua LNumber.String(): integral values as int64, others with Go %v. */
export function luaNumberToString(x: number): string {
  if (isGoInteger(x)) return Object.is(x, -0) ? '0' : BigInt(x).toString();
  return goFloatV(x);
}

let patched = false;

/**
 * Makes fengari behave like gopher-lua for numbers: every numeral (source literals, tonumber,
 * string coercion) becomes a float, so integer arithmetic never wraps at 32 bits; numbers print
 * as gopher-lua prints them. Idempotent.
 */
export function patchFengariNumbers(): void {
  if (patched) return;
  patched = true;
  // Numerals in source and strings coerced to numbers go through gopher-lua's parseNumber, and
  // always become floats. fengari's callers expect the string's length + 1 on success, 0 on failure.
  lobject.luaO_str2num = function str2numLikeGopherLua(s: Uint8Array, o: any): number {
    const value = goParseNumber(latin1.decode(s));
    if (value === undefined) return 0;
    o.setfltvalue(value);
    return s.length + 1;
  };
  // Library functions read integer arguments through lua_tointegerx -> lvm.tointeger. gopher-lua's
  // CheckInt truncates any number (`string.sub(s, 1, #s / 2)` works there); Lua 5.3 raises "number has
  // no integer representation". Truncate, and clamp to fengari's 32-bit integers.
  const numberOf = lvm.tonumber;
  lvm.tointeger = function truncatingToInteger(o: any): number | false {
    if (o.ttisinteger()) return o.value;
    const n = numberOf(o);
    if (n === false) return false;
    if (Number.isNaN(n)) return -(2 ** 31);
    return Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, Math.trunc(n)));
  };
  lobject.luaO_tostring = function tostringLikeGopherLua(L: unknown, obj: any): void {
    const text = obj.ttisinteger() ? String(obj.value) : luaNumberToString(obj.value);
    obj.setsvalue(luaS_bless(L, to_luastring(text)));
  };
}
