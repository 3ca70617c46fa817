// Numbers as gopher-lua has them (only float64), in place of three of fengari's functions: numerals and
// string coercion (lobject.luaO_str2num), integer arguments of library functions (lvm.tointeger) and
// numbers printed by tostring, `..` and coercion to strings (lobject.luaO_tostring); and `^` (lobject.luai_numpow).
import { goMathPow } from '../gopher/go-math.ts';
import { goParseNumber, luaNumberToString } from '../gopher/numbers.ts';
import { lobject, lstring, lvm, to_luastring } from './fengari.ts';

// Every numeral (source literals, tonumber, string coercion) becomes a float through gopher-lua's
// parseNumber, so integer arithmetic never wraps at 32 bits; fengari's callers expect the string's
// length + 1 on success, 0 on failure.
const latin1 = new TextDecoder('latin1');
lobject.luaO_str2num = function str2numLikeGopherLua(s: Uint8Array, o: any): number {
  const value = goParseNumber(latin1.decode(s));
  if (value === undefined) return 0;
  o.setfltvalue(value);
  return s.length + 1;
};

// gopher-lua's CheckInt truncates any number (`string.sub(s, 1, #s / 2)` works there) where Lua 5.3 raises
// "number has no integer representation": truncate, and clamp to fengari's 32-bit integers.
const numberOf = lvm.tonumber;
lvm.tointeger = function truncatingToInteger(o: any): number | false {
  if (o.ttisinteger()) return o.value;
  const n = numberOf(o);
  if (n === false) return false;
  if (Number.isNaN(n)) return -(2 ** 31);
  return Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, Math.trunc(n)));
};

// Go's fmt, as gopher-lua's LNumber.String prints.
lobject.luaO_tostring = function tostringLikeGopherLua(L: unknown, obj: any): void {
  const text = obj.ttisinteger() ? String(obj.value) : luaNumberToString(obj.value);
  obj.setsvalue(lstring.luaS_bless(L, to_luastring(text)));
};

// `^` is Go's math.Pow (go-math.ts) in gopher-lua (vm.go numberArith, compile.go constFold), as math.pow is: the patched
// lvm (OP_POW) and lobject (numarith: constant folding, lua_arith) call lobject.luai_numpow.
lobject.luai_numpow = goMathPow;
