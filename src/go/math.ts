// Go's math.Modf and float64 → int conversions as Go performs them on amd64. (Go's Pow, Frexp, Ldexp and
// the transcendental functions, as Lua's math library needs them, are in src/lua/gopher/go-math.ts.)

const TWO_POW_63 = 2 ** 63;

/** Go int64(float64) conversion as amd64 does it: truncation, MinInt64 for NaN and out-of-range. */
export function goInt64(x: number): bigint {
  if (!Number.isFinite(x) || x >= TWO_POW_63 || x < -TWO_POW_63) return -(2n ** 63n);
  return BigInt(Math.trunc(x));
}

/** Go's int(float64) on amd64 as a JS number: truncation, and the smallest int64 for NaN and out of range. */
export function goIntOf(x: number): number {
  if (!(x >= -TWO_POW_63 && x < TWO_POW_63)) return -TWO_POW_63;
  return Math.trunc(x) || 0;
}

/** math.Modf: integer and fractional parts with the sign of x; Modf(±Inf) is (±Inf, NaN). */
export function goModf(x: number): [number, number] {
  if (x < 1) {
    if (x < 0) {
      const [int, frac] = goModf(-x);
      return [-int, -frac];
    }
    if (x === 0) return [x, x];
    return [0, x];
  }
  const int = Math.trunc(x);
  return [int, x - int];
}
