// Go's math functions as Karmada's gopher-lua (mathlib.go, vm.go OP_POW) gets them on linux/amd64: the pure
// Go sin.go, tan.go, trig_reduce.go, asin.go, atan.go, atan2.go, sinh.go, tanh.go, log10.go, pow.go, and the
// amd64 assembly of Exp (exp_amd64.s, its FMA path: any x86-64 CPU with AVX and FMA, since 2013) and Log
// (log_amd64.s). Hand-written because no library gives Go's results: JavaScript's Math functions (fdlibm in
// V8) differ from these in the last bit for about a quarter of arguments (sin, atan), half for x ^ 1.5, and
// tostring prints every bit. The operations below are Go's, in Go's order.
import { goModf } from '../../go/math.ts';

const float = new Float64Array(1);
const bits = new BigUint64Array(float.buffer);
const M64 = (1n << 64n) - 1n;

function float64bits(x: number): bigint {
  float[0] = x;
  return bits[0]!;
}

function float64frombits(b: bigint): number {
  bits[0] = b & M64;
  return float[0]!;
}

const SMALLEST_NORMAL = 2.2250738585072014e-308;

/** normalize: a subnormal x scaled up by 2^52, and the exponent that undoes it. */
function normalize(x: number): [number, number] {
  return Math.abs(x) < SMALLEST_NORMAL ? [x * 2 ** 52, -52] : [x, 0];
}

/** math.Frexp (frexp.go): x = frac × 2^exp, 0.5 <= |frac| < 1; (x, 0) for ±0, ±Inf and NaN. */
export function goFrexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  const [f, e] = normalize(x);
  const b = float64bits(f);
  const exp = e + Number((b >> 52n) & 0x7ffn) - 1023 + 1;
  return [float64frombits((b & ~(0x7ffn << 52n)) | (1022n << 52n)), exp];
}

/** math.Ldexp (ldexp.go): frac × 2^exp, a subnormal result rounded once. */
export function goLdexp(frac: number, exp: number): number {
  if (frac === 0 || !Number.isFinite(frac)) return frac;
  const [f, e] = normalize(frac);
  exp += e;
  const b = float64bits(f);
  exp += Number((b >> 52n) & 0x7ffn) - 1023;
  if (exp < -1075) return frac < 0 ? -0 : 0;
  if (exp > 1023) return frac < 0 ? -Infinity : Infinity;
  let m = 1;
  if (exp < -1022) {
    exp += 53;
    m = 2 ** -53;
  }
  return m * float64frombits((b & ~(0x7ffn << 52n)) | (BigInt(exp + 1023) << 52n));
}

/** x = m × 2^e exactly, m an integer. */
function decompose(x: number): [bigint, number] {
  const b = float64bits(x);
  const exponent = Number((b >> 52n) & 0x7ffn);
  let mantissa = b & ((1n << 52n) - 1n);
  let e = -1074;
  if (exponent !== 0) {
    mantissa |= 1n << 52n;
    e = exponent - 1075;
  }
  return [b >> 63n === 1n ? -mantissa : mantissa, e];
}

/** m × 2^e rounded once to the nearest float64, ties to even. */
function roundToFloat(m: bigint, e: number): number {
  const negative = m < 0n;
  if (negative) m = -m;
  const msb = e + m.toString(2).length - 1;
  if (msb > 1023) return negative ? -Infinity : Infinity;
  const lsb = Math.max(msb - 52, -1074);
  if (lsb > e) {
    const shift = BigInt(lsb - e);
    let q = m >> shift;
    const rest = m - (q << shift);
    const half = 1n << (shift - 1n);
    if (rest > half || (rest === half && (q & 1n) === 1n)) q += 1n;
    m = q;
    e = lsb;
  }
  const magnitude = Number(m) * 2 ** e; // exact: m has at most 54 bits and e >= -1074
  return negative ? -magnitude : magnitude;
}

/** a × b + c rounded once (the x86 VFMADD/VFNMADD instructions), exact through BigInt. */
export function fusedMultiplyAdd(a: number, b: number, c: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b) || !Number.isFinite(c) || a === 0 || b === 0) return a * b + c;
  if (c === 0) return a * b;
  const [ma, ea] = decompose(a);
  const [mb, eb] = decompose(b);
  const [mc, ec] = decompose(c);
  const product = ma * mb;
  const ep = ea + eb;
  const sum = ep <= ec ? product + (mc << BigInt(ec - ep)) : (product << BigInt(ep - ec)) + mc;
  if (sum === 0n) return 0;
  return roundToFloat(sum, Math.min(ep, ec));
}

/** CVTSD2SL: to int32, rounding to nearest even (MXCSR's default); the "integer indefinite" out of range. */
function toInt32Rounded(x: number): number {
  let r = Math.floor(x);
  const fraction = x - r;
  if (fraction > 0.5 || (fraction === 0.5 && r % 2 !== 0)) r += 1;
  return r >= -2147483648 && r <= 2147483647 ? r : -2147483648;
}

const EXP_OVERFLOW = 709.782712893384;
const LOG2E = 1.4426950408889634;
const LN2U = 0.693147180559663;
const LN2L = 2.8235290563031577e-13;
const EXP_TAYLOR = [
  0.0000248015873015873, 0.0001984126984126984, 0.001388888888888889, 0.008333333333333333, 0.041666666666666664, 0.16666666666666666, 0.5, 1,
];

/** math.Exp on amd64 with FMA (exp_amd64.s archExp, the avxfma path). */
export function goExp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === -Infinity) return 0;
  if (x > EXP_OVERFLOW) return Infinity;
  let exponent = toInt32Rounded(LOG2E * x);
  const k = exponent;
  let x0 = fusedMultiplyAdd(-LN2U, k, x);
  x0 = fusedMultiplyAdd(-LN2L, k, x0);
  x0 *= 0.0625;
  let x1 = EXP_TAYLOR[0]!;
  for (let i = 1; i < EXP_TAYLOR.length; i++) x1 = fusedMultiplyAdd(x1, x0, EXP_TAYLOR[i]!);
  x0 *= x1;
  for (let i = 0; i < 3; i++) {
    x1 = x0 + 2;
    x0 *= x1;
  }
  x1 = x0 + 2;
  x0 = fusedMultiplyAdd(x0, x1, 1);
  exponent += 0x3ff;
  if (exponent <= 0) {
    if (exponent < -52) return 0;
    x0 *= float64frombits(BigInt(exponent + 0x3fe) << 52n);
    return x0 * float64frombits(1n << 52n);
  }
  if (exponent >= 0x7ff) return Infinity;
  return x0 * float64frombits(BigInt(exponent) << 52n);
}

const HALF_SQRT2 = 0.7071067811865476;
const LN2_HI = 0.6931471803691238;
const LN2_LO = 1.9082149292705877e-10;
const L1 = 0.6666666666666735;
const L2 = 0.3999999999940942;
const L3 = 0.2857142874366239;
const L4 = 0.22222198432149784;
const L5 = 0.1818357216161805;
const L6 = 0.15313837699209373;
const L7 = 0.14798198605116586;

/** math.Log on amd64 (log_amd64.s archLog): its frexp reads the bits as they are, subnormals included. */
export function goLog(x: number): number {
  const b = float64bits(x);
  if ((b & ~(1n << 63n)) === 0n) return -Infinity;
  if (b >> 63n === 1n) return NaN;
  if (b >= 0x7ff0000000000000n) return x;
  let f1 = float64frombits((b & 0x000fffffffffffffn) | 0x3fe0000000000000n);
  let k = Number((b >> 52n) & 0x7ffn) - 0x3fe;
  if (!(HALF_SQRT2 < f1)) {
    k -= 1;
    f1 *= 2;
  }
  const f = f1 - 1;
  const s = f / (2 + f);
  const s2 = s * s;
  const s4 = s2 * s2;
  const t1 = s2 * (((L7 * s4 + L5) * s4 + L3) * s4 + L1);
  const t2 = s4 * ((L6 * s4 + L4) * s4 + L2);
  const r = t1 + t2;
  const hfsq = 0.5 * f * f;
  return k * LN2_HI - (hfsq - (s * (hfsq + r) + k * LN2_LO) - f);
}

/** math.Log10: Log(x) * (1/Ln10), the constant rounded once (Math.LOG10E; 1 / Math.LN10 is a bit off). */
export function goLog10(x: number): number {
  return goLog(x) * Math.LOG10E;
}

// --- sin, cos, tan (sin.go, tan.go, trig_reduce.go) ---

const SIN = [1.5896230157654656e-10, -2.5050747762857807e-8, 0.0000027557313621385722, -0.0001984126982958954, 0.008333333333322118, -0.1666666666666663];
const COS = [-1.1358536521387682e-11, 2.087570084197473e-9, -2.755731417929674e-7, 0.000024801587288851704, -0.0013888888888873056, 0.041666666666666595];
const PI4A = 0.7853981256484985;
const PI4B = 3.774894707930798e-8;
const PI4C = 2.6951514290790595e-15;
const FOUR_OVER_PI = 1.2732395447351628; // 4/Pi as Go's constant arithmetic rounds it
const REDUCE_THRESHOLD = 2 ** 29;
const M_PI4 = [
  0x0000000000000001n,
  0x45f306dc9c882a53n,
  0xf84eafa3ea69bb81n,
  0xb6c52b3278872083n,
  0xfca2c757bd778ac3n,
  0x6e48dc74849ba5c0n,
  0x0c925dd413a32439n,
  0xfc3bd63962534e7dn,
  0xd1046bea5d768909n,
  0xd338e04d68befc82n,
  0x7323ac7306a673e9n,
  0x3908bf177bf25076n,
  0x3ff12fffbc0b301fn,
  0xde5e2316b414da3en,
  0xda6cfd9e4f96136en,
  0x9e8c7ecd3cbfd45an,
  0xea4f758fd7cbe2f6n,
  0x7a0e73ef14a525d4n,
  0xd7f6bf623f1aba10n,
  0xac06608df8f6d757n,
];

/** trigReduce: Payne-Hanek reduction of x >= 2^29 to an octant j and z in [-Pi/4, Pi/4]. */
function trigReduce(x: number): [number, number] {
  const pi4 = Math.PI / 4;
  if (x < pi4) return [0, x];
  let ix = float64bits(x);
  const exp = Number((ix >> 52n) & 0x7ffn) - 1023 - 52;
  ix &= ~(0x7ffn << 52n) & M64;
  ix |= 1n << 52n;
  const digit = Math.floor((exp + 61) / 64);
  const shift = BigInt((exp + 61) % 64);
  const word = (i: number) => ((M_PI4[i]! << shift) | (M_PI4[i + 1]! >> (64n - shift))) & M64;
  const z0 = word(digit);
  const z1 = word(digit + 1);
  const z2 = word(digit + 2);
  const z2hi = (z2 * ix) >> 64n;
  const p1 = z1 * ix;
  const z1hi = p1 >> 64n;
  const z1lo = p1 & M64;
  const z0lo = (z0 * ix) & M64;
  const low = z1lo + z2hi;
  const lo = low & M64;
  let hi = (z0lo + z1hi + (low >> 64n)) & M64;
  let j = Number(hi >> 61n);
  hi = ((hi << 3n) | (lo >> 61n)) & M64;
  const lz = hi === 0n ? 64 : 64 - hi.toString(2).length;
  const e = BigInt(1023 - (lz + 1));
  hi = ((hi << BigInt(lz + 1)) | (lo >> BigInt(64 - (lz + 1)))) & M64;
  hi >>= 64n - 52n;
  hi |= e << 52n;
  let z = float64frombits(hi);
  if ((j & 1) === 1) {
    j = (j + 1) & 7;
    z--;
  }
  return [j, z * pi4];
}

/** The octant j and the reduced z of |x| (sin.go, cos.go, tan.go share it). */
function reduce(x: number, octantModulo: boolean): [number, number] {
  if (x >= REDUCE_THRESHOLD) return trigReduce(x);
  let j = Math.trunc(x * FOUR_OVER_PI);
  let y = j;
  if ((j & 1) === 1) {
    j++;
    y++;
  }
  if (octantModulo) j &= 7;
  return [j, x - y * PI4A - y * PI4B - y * PI4C];
}

const sinSeries = (z: number, zz: number) => z + z * zz * (((((SIN[0]! * zz + SIN[1]!) * zz + SIN[2]!) * zz + SIN[3]!) * zz + SIN[4]!) * zz + SIN[5]!);
const cosSeries = (zz: number) => 1 - 0.5 * zz + zz * zz * (((((COS[0]! * zz + COS[1]!) * zz + COS[2]!) * zz + COS[3]!) * zz + COS[4]!) * zz + COS[5]!);

export function goSin(x: number): number {
  if (x === 0 || Number.isNaN(x)) return x;
  if (!Number.isFinite(x)) return NaN;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  const [octant, z] = reduce(x, true);
  let j = octant;
  if (j > 3) {
    sign = !sign;
    j -= 4;
  }
  const zz = z * z;
  const y = j === 1 || j === 2 ? cosSeries(zz) : sinSeries(z, zz);
  return sign ? -y : y;
}

export function goCos(x: number): number {
  if (!Number.isFinite(x)) return NaN;
  let sign = false;
  x = Math.abs(x);
  const [octant, z] = reduce(x, true);
  let j = octant;
  if (j > 3) {
    j -= 4;
    sign = !sign;
  }
  if (j > 1) sign = !sign;
  const zz = z * z;
  const y = j === 1 || j === 2 ? sinSeries(z, zz) : cosSeries(zz);
  return sign ? -y : y;
}

const TAN_P = [-13093.693918138379, 1153516.6483858742, -17956525.197648488];
const TAN_Q = [1, 13681.296347069296, -1320892.3444021097, 25008380.18233579, -53869575.592945464];

export function goTan(x: number): number {
  if (x === 0 || Number.isNaN(x)) return x;
  if (!Number.isFinite(x)) return NaN;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  const [j, z] = reduce(x, false);
  const zz = z * z;
  let y =
    zz > 1e-14
      ? z + z * ((zz * ((TAN_P[0]! * zz + TAN_P[1]!) * zz + TAN_P[2]!)) / ((((zz + TAN_Q[1]!) * zz + TAN_Q[2]!) * zz + TAN_Q[3]!) * zz + TAN_Q[4]!))
      : z;
  if ((j & 2) === 2) y = -1 / y;
  return sign ? -y : y;
}

// --- asin, acos, atan, atan2 (asin.go, atan.go, atan2.go) ---

function xatan(x: number): number {
  const P0 = -0.8750608600031904;
  const P1 = -16.157537187333652;
  const P2 = -75.00855792314705;
  const P3 = -122.88666844901361;
  const P4 = -64.85021904942025;
  const Q0 = 24.858464901423062;
  const Q1 = 165.02700983169885;
  const Q2 = 432.88106049129027;
  const Q3 = 485.3903996359137;
  const Q4 = 194.5506571482614;
  let z = x * x;
  z = (z * ((((P0 * z + P1) * z + P2) * z + P3) * z + P4)) / (((((z + Q0) * z + Q1) * z + Q2) * z + Q3) * z + Q4);
  return x * z + x;
}

function satan(x: number): number {
  const MOREBITS = 6.123233995736766e-17;
  const TAN3PIO8 = 2.414213562373095;
  if (x <= 0.66) return xatan(x);
  if (x > TAN3PIO8) return Math.PI / 2 - xatan(1 / x) + MOREBITS;
  return Math.PI / 4 + xatan((x - 1) / (x + 1)) + 0.5 * MOREBITS;
}

export function goAtan(x: number): number {
  if (x === 0) return x;
  return x > 0 ? satan(x) : -satan(-x);
}

export function goAsin(x: number): number {
  if (x === 0) return x;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  if (x > 1) return NaN;
  let temp = Math.sqrt(1 - x * x);
  temp = x > 0.7 ? Math.PI / 2 - satan(temp / x) : satan(x / temp);
  return sign ? -temp : temp;
}

export function goAcos(x: number): number {
  return Math.PI / 2 - goAsin(x);
}

const copysign = (magnitude: number, sign: number) => (sign < 0 || Object.is(sign, -0) ? -Math.abs(magnitude) : Math.abs(magnitude));

export function goAtan2(y: number, x: number): number {
  if (Number.isNaN(y) || Number.isNaN(x)) return NaN;
  if (y === 0) return x >= 0 && !Object.is(x, -0) ? copysign(0, y) : copysign(Math.PI, y);
  if (x === 0) return copysign(Math.PI / 2, y);
  if (!Number.isFinite(x)) {
    if (x === Infinity) return Number.isFinite(y) ? copysign(0, y) : copysign(Math.PI / 4, y);
    return Number.isFinite(y) ? copysign(Math.PI, y) : copysign((3 * Math.PI) / 4, y);
  }
  if (!Number.isFinite(y)) return copysign(Math.PI / 2, y);
  const q = goAtan(y / x);
  if (x < 0) return q <= 0 ? q + Math.PI : q - Math.PI;
  return q;
}

// --- sinh, cosh, tanh (sinh.go, tanh.go) ---

export function goSinh(x: number): number {
  const P0 = -630767.3640497717;
  const P1 = -89912.72022039509;
  const P2 = -2894.211355989564;
  const P3 = -26.30563213397497;
  const Q0 = -630767.3640497717;
  const Q1 = 15215.17378790019;
  const Q2 = -173.6789535582337;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let temp: number;
  if (x > 21) temp = goExp(x) * 0.5;
  else if (x > 0.5) {
    const ex = goExp(x);
    temp = (ex - 1 / ex) * 0.5;
  } else {
    const sq = x * x;
    temp = (((P3 * sq + P2) * sq + P1) * sq + P0) * x;
    temp = temp / (((sq + Q2) * sq + Q1) * sq + Q0);
  }
  return sign ? -temp : temp;
}

export function goCosh(x: number): number {
  x = Math.abs(x);
  if (x > 21) return goExp(x) * 0.5;
  const ex = goExp(x);
  return (ex + 1 / ex) * 0.5;
}

export function goTanh(x: number): number {
  const MAXLOG = 88.02969193111305;
  const P = [-0.9643991794250523, -99.28772310019185, -1614.6876844170845];
  const Q = [112.81167849163293, 2235.4883906010045, 4844.063053251255];
  let z = Math.abs(x);
  if (z > 0.5 * MAXLOG) return x < 0 ? -1 : 1;
  if (z >= 0.625) {
    const s = goExp(2 * z);
    z = 1 - 2 / (s + 1);
    return x < 0 ? -z : z;
  }
  if (x === 0) return x;
  const s = x * x;
  return x + (x * s * ((P[0]! * s + P[1]!) * s + P[2]!)) / (((s + Q[0]!) * s + Q[1]!) * s + Q[2]!);
}

// --- pow (pow.go), on the Exp and Log above ---

function isOddInt(x: number): boolean {
  const [xi, xf] = goModf(x);
  return xf === 0 && Math.abs(xi) < 2 ** 63 && BigInt(xi) % 2n !== 0n;
}

/** math.Pow: Go's special cases, x^yf through Exp(yf × Log(x)), x^yi by repeated squaring of the mantissa. */
export function goMathPow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (y === 1) return x;
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === 0) {
    if (y < 0) return isOddInt(y) ? copysign(Infinity, x) : Infinity;
    return isOddInt(y) ? x : 0;
  }
  if (!Number.isFinite(y)) {
    if (x === -1) return 1;
    return Math.abs(x) < 1 === (y === Infinity) ? 0 : Infinity;
  }
  if (!Number.isFinite(x)) {
    if (x === -Infinity) return goMathPow(1 / x, -y);
    return y < 0 ? 0 : Infinity;
  }
  if (y === 0.5) return Math.sqrt(x);
  if (y === -0.5) return 1 / Math.sqrt(x);
  let [yi, yf] = goModf(Math.abs(y));
  if (yf !== 0 && x < 0) return NaN;
  if (yi >= 2 ** 63) {
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
    a1 = goExp(yf * goLog(x));
  }
  let [x1, xe] = goFrexp(x);
  for (let i = BigInt(yi); i !== 0n; i >>= 1n) {
    if (xe < -(1 << 12) || 1 << 12 < xe) {
      ae += xe;
      break;
    }
    if ((i & 1n) === 1n) {
      a1 *= x1;
      ae += xe;
    }
    x1 *= x1;
    xe *= 2;
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
