// Lua 5.1 / gopher-lua number semantics on top of fengari (Lua 5.3, 32-bit integers).
// gopher-lua has only float64 numbers and prints them with Go's fmt; scripts written for Karmada
// rely on that (`tostring(3) == "3"`, `"x" .. 1e15 == "x1000000000000000"`, no integer wrap).
import { goSprintFloat } from '../../go/fmt.ts';

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
