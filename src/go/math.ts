// Go's math package functions that Lua's math library reaches (math/pow.go, modf.go, frexp.go,
// ldexp.go), and float64 → int conversions as Go performs them on amd64. JavaScript's Math.pow rounds
// differently for large exponents and has other special cases, so these follow Go's algorithms.

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

/** math.Frexp: x = frac × 2^exp with 0.5 <= |frac| < 1; (x, 0) for 0, ±Inf and NaN. */
export function goFrexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  let e = Math.max(-1073, Math.floor(Math.log2(Math.abs(x))) + 1);
  let m = x * 2 ** -e;
  while (Math.abs(m) < 0.5) {
    m *= 2;
    e--;
  }
  while (Math.abs(m) >= 1) {
    m /= 2;
    e++;
  }
  return [m, e];
}

/** math.Ldexp: frac × 2^exp rounded once (subnormal results included), ±Inf past the range. */
export function goLdexp(frac: number, exp: number): number {
  if (frac === 0 || !Number.isFinite(frac)) return frac;
  const [m, e] = goFrexp(frac);
  const scale = exp + e - 1; // |m * 2| is in [1, 2)
  if (scale < -1075) return frac < 0 ? -0 : 0;
  if (scale > 1023) return frac < 0 ? -Infinity : Infinity;
  if (scale < -1022) return m * 2 * 2 ** (scale + 53) * 2 ** -53;
  return m * 2 * 2 ** scale;
}

function isOddInt(y: number): boolean {
  if (Math.abs(y) >= 2 ** 53) return false;
  return Number.isInteger(y) && Math.abs(y % 2) === 1;
}

/**
 * math.Pow as Go computes it (math/pow.go): its special cases (Pow(1, NaN) and Pow(-1, ±Inf) are 1), and
 * for finite cases the integer part of the exponent by repeated squaring of the mantissa, which rounds
 * differently from JavaScript's Math.pow for large exponents (`1.1 ^ 50` differs in the last digit). The
 * fractional part uses exp(yf × log(x)) with JavaScript's exp and log.
 */
export function goPow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (y === 1) return x;
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === 0) {
    if (y < 0) return Object.is(x, -0) && isOddInt(y) ? -Infinity : Infinity;
    return Object.is(x, -0) && isOddInt(y) ? x : 0;
  }
  if (!Number.isFinite(y)) {
    if (x === -1) return 1;
    return Math.abs(x) < 1 === (y === Infinity) ? 0 : Infinity;
  }
  if (!Number.isFinite(x)) {
    if (x === -Infinity) return goPow(1 / x, -y);
    return y < 0 ? 0 : Infinity;
  }
  if (y === 0.5) return Math.sqrt(x);
  if (y === -0.5) return 1 / Math.sqrt(x);
  let [yi, yf] = goModf(Math.abs(y));
  if (yf !== 0 && x < 0) return NaN;
  if (yi >= TWO_POW_63) {
    if (x === -1) return 1;
    return Math.abs(x) < 1 === y > 0 ? 0 : Infinity;
  }
  let a1 = 1;
  let ae = 0;
  if (yf !== 0) {
    if (yf > 0.5) {
      yf--;
      yi++;
    }
    a1 = Math.exp(yf * Math.log(x));
  }
  let [x1, xe] = goFrexp(x);
  for (let i = BigInt(yi); i !== 0n; i >>= 1n) {
    if (xe < -(1 << 12) || 1 << 12 < xe) {
      // catastrophic overflow: the result is 0 or ±Inf either way
      ae += xe;
      break;
    }
    if ((i & 1n) === 1n) {
      a1 *= x1;
      ae += xe;
    }
    x1 *= x1;
    xe <<= 1;
    if (x1 < 0.5) {
      x1 += x1;
      xe--;
    }
  }
  if (y < 0) {
    a1 = 1 / a1;
    ae = -ae;
  }
  return goLdexp(a1, ae);
}
