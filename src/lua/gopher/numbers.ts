// Lua 5.1 / gopher-lua numbers, which are only float64: how they print (Go's fmt) and how numerals and
// strings coerced to numbers parse (Go's strconv). Pure functions, without fengari: engine/numbers.ts
// installs them in the VM; scripts written for Karmada rely on them (`tostring(3) == "3"`, no integer wrap).
import { goSprintFloat } from '../../go/fmt.ts';
import { goParseFloat, goParseInt } from '../../go/strconv.ts';

const TWO_POW_63 = 2 ** 63;

/** gopher-lua isInteger: float64(v) == float64(int64(v)) on amd64 (out-of-range converts to MinInt64). */
export function isGoInteger(x: number): boolean {
  return Number.isInteger(x) && x >= -TWO_POW_63 && x < TWO_POW_63;
}

/** gopher-lua LNumber.String(): integral values as int64, others with Go %v. */
export function luaNumberToString(x: number): string {
  if (isGoInteger(x)) return Object.is(x, -0) ? '0' : BigInt(x).toString();
  return goSprintFloat(x);
}

/** strconv.ParseInt as a float64 (LNumber), or undefined where Go returns an error. */
export function goParseIntNumber(s: string, base: number): number | undefined {
  const value = goParseInt(s, base);
  return value === undefined ? undefined : Number(value);
}

/**
 * gopher-lua parseNumber (utils.go), used for numerals in source and for strings coerced to numbers
 * (arithmetic, number arguments of library functions): trimmed of " \t\n", then ParseInt with base
 * 0 (so "0x10" is 16, "010" is octal 8, "0b101" is 5, "1_000" is 1000), else ParseFloat. A numeral in
 * source comes here as gopher-lua's lexer cuts it (source.ts: source `010` arrives as "10").
 */
export function goParseNumber(input: string): number | undefined {
  const s = input.replace(/^[ \t\n]+|[ \t\n]+$/g, '');
  return goParseIntNumber(s, 0) ?? goParseFloat(s);
}
