// Kubernetes resource.Quantity (k8s.io/apimachinery/pkg/api/resource) with exact arithmetic.
//
// Hand-written on purpose: no npm library parses, adds and re-prints quantities the way apimachinery does.
// @kubernetes/client-node's `quantityToScalar` converts to a JS number (lossy for "0.1", milli values,
// anything past 2^53) and has no canonical formatter; generic decimal libraries know neither the suffix
// grammar nor Kubernetes' canonical form. Karmada compares our answers with Quantity-aware equality and
// Lua scripts see the strings we print, so this port follows quantity.go, amount.go, suffix.go and
// math.go closely (the Go function each piece mirrors is named next to it).
//
// Value model: value = unscaled * 10^exponent, `unscaled` a BigInt, so no float ever holds the value.
// `big` records whether Go would hold the amount as inf.Dec rather than int64Amount: the two
// representations print the same, but `asApproximateFloat64` multiplies Go's stored (unscaled, scale)
// pair, so the pair is kept exactly as Go keeps it.

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const NANO = -9;
/** Digits the int64 fast path of ParseQuantity accepts (maxInt64Factors, apimachinery math.go). */
const MAX_INT64_FACTORS = 18;

/**
 * Deliberate limit (apimachinery has none): the most digits a quantity's number may have, integer and
 * fraction together, leading zeros of the integer part not counted. Go accepts any length; together with
 * MAX_QUANTITY_EXPONENT it bounds every exact value this module builds to about 2,000 digits, so no
 * request can make quantity arithmetic slow. Int64 values at nano precision need at most 28.
 */
export const MAX_QUANTITY_DIGITS = 1000;
/**
 * Deliberate limit (apimachinery narrows the exponent to int32 and nothing more): the largest decimal
 * exponent, either sign, after that narrowing. Go builds 10^exponent for any sum, comparison or inf.Dec
 * value and stalls on large ones; a float64 ends at 1e308, a resource in practice far below.
 */
export const MAX_QUANTITY_EXPONENT = 1000;
/** Characters of a rejected input quoted back in an error message. */
const MESSAGE_QUOTE_LIMIT = 64;

const DECIMAL_SI_SUFFIX: ReadonlyMap<number, string> = new Map([
  [-9, 'n'],
  [-6, 'u'],
  [-3, 'm'],
  [0, ''],
  [3, 'k'],
  [6, 'M'],
  [9, 'G'],
  [12, 'T'],
  [15, 'P'],
  [18, 'E'],
]);
const DECIMAL_SI_EXPONENT: ReadonlyMap<string, number> = new Map([...DECIMAL_SI_SUFFIX].map(([exp, suffix]) => [suffix, exp]));
const BINARY_SI_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const SUFFIX_CHARS = 'eEinumkKMGTP';

function fitsInt64(v: bigint): boolean {
  return v >= INT64_MIN && v <= INT64_MAX;
}

/** Powers of ten up to the largest any bounded value needs, built once each. */
const POW10_CACHE: bigint[] = [1n];
function pow10(n: number): bigint {
  if (n >= POW10_CACHE.length && n <= 2 * (MAX_QUANTITY_DIGITS + MAX_QUANTITY_EXPONENT) + 32) {
    for (let i = POW10_CACHE.length; i <= n; i++) POW10_CACHE.push(POW10_CACHE[i - 1] * 10n);
  }
  return POW10_CACHE[n] ?? 10n ** BigInt(n);
}

function absBig(v: bigint): bigint {
  return v < 0n ? -v : v;
}

/** Divides by 10^n rounding away from zero (inf.RoundUp / negativeScaleInt64); reports exactness. */
function divideRoundUp(v: bigint, n: number): { value: bigint; exact: boolean } {
  if (n <= 0) return { value: v * pow10(-n), exact: true };
  const magnitude = absBig(v);
  // A magnitude below 10^n rounds to one unit; skip building a huge power of ten.
  if (magnitude.toString().length <= n) {
    return magnitude === 0n ? { value: 0n, exact: true } : { value: v < 0n ? -1n : 1n, exact: false };
  }
  const divisor = pow10(n);
  const quotient = magnitude / divisor;
  const exact = quotient * divisor === magnitude;
  const rounded = exact ? quotient : quotient + 1n;
  return { value: v < 0n ? -rounded : rounded, exact };
}

/** Go's math.Pow10, reproduced table for table so float results match bit for bit. */
const POW10_TAB = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS32 = Array.from({ length: 10 }, (_, i) => Number(`1e${i * 32}`));
const POW10_NEG32 = Array.from({ length: 11 }, (_, i) => Number(`1e-${i * 32}`));
function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return POW10_POS32[Math.floor(n / 32)] * POW10_TAB[n % 32];
  if (n < 0 && n >= -323) return POW10_NEG32[Math.floor(-n / 32)] / POW10_TAB[-n % 32];
  return n > 0 ? Infinity : 0;
}

interface ScannedQuantity {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** quantity.go parseQuantityString: a permissive scanner; the suffix is validated afterwards. */
function scanQuantity(str: string): ScannedQuantity | undefined {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end && (str[0] === '-' || str[0] === '+')) {
    positive = str[0] !== '-';
    pos++;
  }
  // strip leading zeros; a string of only zeros (or only a sign) is zero
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };

  const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
  const numStart = pos;
  while (pos < end && isDigit(str[pos])) pos++;
  let num = str.slice(numStart, pos);
  if (pos >= end) return { positive, value: str, num, denom: '', suffix: '' };
  if (num.length === 0) num = '0';

  let denom = '';
  if (str[pos] === '.') {
    pos++;
    const denomStart = pos;
    while (pos < end && isDigit(str[pos])) pos++;
    denom = str.slice(denomStart, pos);
    if (pos >= end) return { positive, value: str, num, denom, suffix: '' };
  }
  const value = str.slice(0, pos);

  const suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.includes(str[pos])) pos++;
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) return undefined; // ErrFormatWrong
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

/** suffix.go interpret: [base, exponent, format], or undefined (ErrSuffix). No case correction upstream. */
function interpretSuffix(suffix: string): [10 | 2, number, QuantityFormat] | undefined {
  const decimal = DECIMAL_SI_EXPONENT.get(suffix);
  if (decimal !== undefined) return [10, decimal, 'DecimalSI'];
  const binary = BINARY_SI_SUFFIXES.indexOf(suffix);
  if (binary > 0) return [2, binary * 10, 'BinarySI'];
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const digits = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(digits)) return undefined;
    // strconv.ParseInt(digits, 10, 64): more than 19 significant digits is a range error for certain,
    // so a long run of digits is refused without converting it.
    const significant = digits.replace(/^[+-]?0*/, '');
    if (significant.length > 19) return undefined;
    const parsed = BigInt(digits);
    if (!fitsInt64(parsed)) return undefined; // strconv.ParseInt range error
    // Go narrows with int32(parsed): wraps, it does not fail.
    return [10, Number(BigInt.asIntN(32, parsed)), 'DecimalExponent'];
  }
  return undefined;
}

/** Errors thrown for strings Kubernetes would refuse (ErrFormatWrong / ErrSuffix / ErrNumeric). */
export class QuantityParseError extends Error {
  constructor(input: unknown, reason: string) {
    super(`invalid quantity ${quoteForMessage(input)}: ${reason}`);
    this.name = 'QuantityParseError';
  }
}

/** A request value quoted in an error message: JSON, cut to a few dozen characters. */
export function quoteForMessage(value: unknown): string {
  if (typeof value !== 'string') {
    let json: string;
    try {
      json = JSON.stringify(value) ?? String(value);
    } catch {
      json = String(value);
    }
    return json.length <= MESSAGE_QUOTE_LIMIT ? json : `${json.slice(0, MESSAGE_QUOTE_LIMIT)}... (${json.length} characters)`;
  }
  if (value.length <= MESSAGE_QUOTE_LIMIT) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, MESSAGE_QUOTE_LIMIT))}... (${value.length} characters)`;
}

/** A JSON number as Go's decoder would hand its text to ParseQuantity (best effort: JS lost the text). */
function numberText(v: number): string {
  if (!Number.isFinite(v)) throw new QuantityParseError(v, 'not a finite number');
  // "1.5", "1e-7", "1e21" (JS writes "1e+21"; Go would see the JSON text, usually without "+")
  return String(v).replace('e+', 'e');
}

export class Quantity {
  /** value = unscaled * 10^exponent */
  private readonly unscaled: bigint;
  private readonly exponent: number;
  /** Remembered from parsing; '' only for the zero value Go starts sums with. */
  readonly format: QuantityFormat | '';
  /** Go holds this amount as inf.Dec (true) or int64Amount (false). */
  private readonly big: boolean;
  /** Go's cached string `s`: ParseQuantity keeps the input when it already looks canonical. */
  private readonly cached?: string;

  private constructor(unscaled: bigint, exponent: number, format: QuantityFormat | '', big: boolean, cached?: string) {
    this.unscaled = unscaled;
    this.exponent = exponent;
    this.format = format;
    this.big = big;
    this.cached = cached;
  }

  /** Go's `resource.Quantity{}`: zero with no format (adopts the format of whatever is added to it). */
  static zero(): Quantity {
    return new Quantity(0n, 0, '', false);
  }

  /** resource.NewQuantity(value, format). */
  static fromInt(value: number | bigint, format: QuantityFormat): Quantity {
    return new Quantity(BigInt(value), 0, format, false);
  }

  /** resource.NewMilliQuantity(value, format). */
  static fromMilli(value: number | bigint, format: QuantityFormat): Quantity {
    return new Quantity(BigInt(value), -3, format, false);
  }

  /** resource.NewScaledQuantity(value, scale): value * 10^scale, DecimalSI. */
  static fromScaled(value: number | bigint, scale: number): Quantity {
    return new Quantity(BigInt(value), scale, 'DecimalSI', false);
  }

  /**
   * Parses a quantity as Kubernetes decodes one from JSON (Quantity.UnmarshalJSON: surrounding
   * whitespace trimmed, then ParseQuantity). A JSON number is accepted as its JS text.
   * Throws QuantityParseError for anything the API server would reject, and for a number beyond
   * MAX_QUANTITY_DIGITS or MAX_QUANTITY_EXPONENT (Go has no such limit).
   */
  static parse(v: string | number): Quantity {
    if (typeof v === 'number') return Quantity.parseString(numberText(v));
    if (typeof v !== 'string') throw new QuantityParseError(v, 'not a string or number');
    return Quantity.parseString(v.trim());
  }

  /** Go's ParseQuantity / resource.MustParse exactly: no whitespace trimming, strings only. */
  static parseStrict(str: string): Quantity {
    if (typeof str !== 'string') throw new QuantityParseError(str, 'not a string');
    return Quantity.parseString(str);
  }

  /** Like parse, but undefined instead of an exception. */
  static tryParse(v: unknown): Quantity | undefined {
    if (typeof v !== 'string' && typeof v !== 'number') return undefined;
    try {
      return Quantity.parse(v);
    } catch (err) {
      if (err instanceof QuantityParseError) return undefined;
      throw err;
    }
  }

  /** quantity.go ParseQuantity. */
  private static parseString(str: string): Quantity {
    if (str.length === 0) throw new QuantityParseError(str, 'empty string');
    if (str === '0') return new Quantity(0n, 0, 'DecimalSI', false, str);

    const scanned = scanQuantity(str);
    if (!scanned) throw new QuantityParseError(str, 'does not match ^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$');
    const { positive, num, denom } = scanned;
    const interpreted = interpretSuffix(scanned.suffix);
    if (!interpreted) throw new QuantityParseError(str, `unknown suffix ${quoteForMessage(scanned.suffix)}`);
    const [base, exponent] = interpreted;
    let format = interpreted[2];
    if (Math.abs(exponent) > MAX_QUANTITY_EXPONENT) {
      throw new QuantityParseError(str, `exponent ${exponent} is beyond ±${MAX_QUANTITY_EXPONENT} (a limit of this server)`);
    }
    if (num.length + denom.length > MAX_QUANTITY_DIGITS) {
      throw new QuantityParseError(str, `more than ${MAX_QUANTITY_DIGITS} digits (a limit of this server)`);
    }

    // Fast path: the value fits int64 at a scale >= nano (int64Amount in Go).
    let precision: number;
    let scale = 0;
    let mantissa = 1n;
    if (format === 'BinarySI') {
      if (exponent >= 0 && denom.length === 0) {
        mantissa = 1n << BigInt(exponent);
        precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
      } else {
        precision = -1;
      }
    } else {
      scale = exponent;
      precision = MAX_INT64_FACTORS - (num.length + denom.length);
    }
    if (precision >= 0) {
      scale -= denom.length;
      if (scale >= NANO) {
        const shifted = num + denom;
        const value = BigInt(shifted);
        const product = value * mantissa;
        if (fitsInt64(product)) {
          const result = positive ? product : -product;
          const looksCanonical =
            format === 'BinarySI' ? exponent % 10 === 0 && (value & 7n) !== 0n : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
          return new Quantity(result, scale, format, false, looksCanonical ? str : undefined);
        }
      }
    }

    // inf.Dec path: exact value, rounded away from zero to nano, BinarySI capped at int64.
    if (!/[0-9]/.test(scanned.value)) throw new QuantityParseError(str, 'no digits');
    let unscaled = BigInt(num + denom);
    let exp = -denom.length;
    if (base === 10) exp += exponent;
    else unscaled *= 1n << BigInt(exponent);
    if (unscaled !== 0n) {
      // inf.Dec.Round(amount, 9, RoundUp) leaves the amount at exactly nine decimal places.
      unscaled = exp < NANO ? divideRoundUp(unscaled, NANO - exp).value : unscaled * pow10(exp - NANO);
      exp = NANO;
    }
    if (format === 'BinarySI' && unscaled > INT64_MAX * pow10(-exp)) {
      unscaled = INT64_MAX;
      exp = 0;
    }
    if (format === 'BinarySI' && unscaled > 0n && unscaled < pow10(-exp)) format = 'DecimalSI';
    return new Quantity(positive ? unscaled : -unscaled, exp, format, true);
  }

  /** Quantity.IsZero. */
  isZero(): boolean {
    return this.unscaled === 0n;
  }

  /** Quantity.Sign: -1, 0 or 1. */
  sign(): -1 | 0 | 1 {
    return this.unscaled === 0n ? 0 : this.unscaled > 0n ? 1 : -1;
  }

  /** Quantity.Neg (returns a new quantity). */
  neg(): Quantity {
    // -MinInt64 does not fit int64: Go switches to inf.Dec.
    const big = this.big || this.unscaled === INT64_MIN;
    return new Quantity(-this.unscaled, this.exponent, this.format, big);
  }

  /**
   * Quantity.Add: the result keeps this quantity's format, unless this one is zero, in which case it
   * takes the format of `y`. Exact; the cached parse string is dropped, so the sum prints canonically.
   */
  add(y: Quantity): Quantity {
    const format = this.isZero() ? y.format : this.format;
    if (!this.big && !y.big) {
      // int64Amount.Add: a zero operand leaves the other's (value, scale) untouched.
      if (y.unscaled === 0n) return new Quantity(this.unscaled, this.exponent, format, false);
      if (this.unscaled === 0n) return new Quantity(y.unscaled, y.exponent, format, false);
      const exp = Math.min(this.exponent, y.exponent);
      const a = this.unscaled * pow10(this.exponent - exp);
      const b = y.unscaled * pow10(y.exponent - exp);
      if (fitsInt64(a) && fitsInt64(b) && fitsInt64(a + b)) return new Quantity(a + b, exp, format, false);
    }
    // inf.Dec.Add aligns both operands to the finer scale.
    const exp = Math.min(this.exponent, y.exponent);
    const sum = this.unscaled * pow10(this.exponent - exp) + y.unscaled * pow10(y.exponent - exp);
    return new Quantity(sum, exp, format, true);
  }

  /** Quantity.Sub: same format rule as add. */
  sub(y: Quantity): Quantity {
    return this.add(y.neg());
  }

  /** Quantity.Cmp. */
  cmp(y: Quantity): -1 | 0 | 1 {
    const exp = Math.min(this.exponent, y.exponent);
    const a = this.unscaled * pow10(this.exponent - exp);
    const b = y.unscaled * pow10(y.exponent - exp);
    return a === b ? 0 : a < b ? -1 : 1;
  }

  /** Quantity.Equal (value equality; format and spelling do not matter: "1" equals "1000m"). */
  equals(y: Quantity): boolean {
    return this.cmp(y) === 0;
  }

  /** The larger of the two (this one on a tie), like the `Cmp(...) < 0` swaps in Kubernetes helpers. */
  max(y: Quantity): Quantity {
    return this.cmp(y) < 0 ? y : this;
  }

  /** Quantity.ScaledValue as a BigInt: ceil(value / 10^scale), rounding away from zero. Never overflows. */
  scaledValueBigInt(scale: number): bigint {
    return divideRoundUp(this.unscaled, scale - this.exponent).value;
  }

  /**
   * Quantity.ScaledValue exactly as Go computes it, as an int64 held in a BigInt: ceil(value / 10^scale)
   * where that fits, and where it does not, what Go's int64 code yields (0 from the int64Amount path,
   * wrapped low 64 bits from the inf.Dec path, scale_int.go scaledValue). Karmada's util.Resource
   * sums these, so this is what it stores for a quantity too large for int64.
   */
  scaledValueInt64(scale: number): bigint {
    const int64 = (v: bigint) => BigInt.asIntN(64, v);
    if (!this.big) {
      // int64Amount.AsScaledInt64
      if (this.exponent < scale) return divideRoundUp(this.unscaled, scale - this.exponent).value;
      const shift = this.exponent - scale;
      if (this.unscaled === 0n || shift === 0) return this.unscaled;
      if (shift > MAX_INT64_FACTORS) return 0n; // positiveScaleInt64 overflows: (0, false)
      const product = this.unscaled * pow10(shift);
      return fitsInt64(product) ? product : 0n;
    }
    // inf.Dec holds (unscaled, infScale = -exponent); ScaledValue asks for infScale -scale.
    const dif = scale - this.exponent;
    if (dif === 0) return int64(this.unscaled); // big.Int.Int64: the low 64 bits
    if (dif < 0) {
      // unscaled.Int64() * int64(math.Pow10(-dif)); past 10^18 the float does not fit int64 and amd64
      // converts it to MinInt64.
      const factor = -dif <= MAX_INT64_FACTORS ? pow10(-dif) : INT64_MIN;
      return int64(int64(this.unscaled) * factor);
    }
    if (this.unscaled < INT64_MAX && dif < 19) {
      // int64 division truncates toward zero, then +1 on any remainder (so -1.5 gives 0 here, not -2)
      const value = int64(this.unscaled);
      const divisor = pow10(dif);
      const quotient = value / divisor;
      return value % divisor !== 0n ? int64(quotient + 1n) : quotient;
    }
    // big.Int.DivMod of a positive value (unscaled >= MaxInt64 here)
    const divisor = pow10(dif);
    const quotient = this.unscaled / divisor;
    return this.unscaled % divisor !== 0n ? int64(int64(quotient) + 1n) : int64(quotient);
  }

  /** Quantity.Value: the value rounded away from zero to an integer (a JS number; exact below 2^53). */
  value(): number {
    return Number(this.scaledValueBigInt(0));
  }

  /** Quantity.MilliValue: ceil(value * 1000) away from zero (a JS number; exact below 2^53). */
  milliValue(): number {
    return Number(this.scaledValueBigInt(-3));
  }

  /**
   * Quantity.AsApproximateFloat64: float(unscaled) * math.Pow10(scale) over Go's stored pair, so the
   * (possibly inexact) float is the one Go computes, e.g. for kube.getResourceQuantity.
   */
  asApproximateFloat64(): number {
    const base = Number(this.unscaled);
    return this.exponent === 0 ? base : base * goPow10(this.exponent);
  }

  /** Quantity.String(): the canonical form Kubernetes prints (CanonicalizeBytes). */
  toString(): string {
    if (this.cached !== undefined) return this.cached;
    if (this.unscaled === 0n) return '0';

    let format: QuantityFormat = this.format === 'DecimalSI' || this.format === 'BinarySI' ? this.format : 'DecimalExponent';
    let integer = 0n;
    if (format === 'BinarySI') {
      // |q| < 1024, or a fraction, would need rounding in base 1024: shown as DecimalSI instead.
      if (this.cmp(Quantity.fromInt(-1024, 'DecimalSI')) > 0 && this.cmp(Quantity.fromInt(1024, 'DecimalSI')) < 0) {
        format = 'DecimalSI';
      } else {
        const rounded = divideRoundUp(this.unscaled, -this.exponent);
        if (rounded.exact) integer = rounded.value;
        else format = 'DecimalSI';
      }
    }

    if (format === 'BinarySI') {
      // AsCanonicalBase1024Bytes: move factors of 1024 into the suffix, found from the trailing zero
      // bits in one pass rather than by repeated division.
      const magnitude = absBig(integer);
      const trailingZeroBits = (magnitude & -magnitude).toString(2).length - 1;
      // Deliberate: past Ei Go finds no suffix and prints the bare mantissa (a wrong value); we stay at Ei.
      const times = Math.min(Math.floor(trailingZeroBits / 10), BINARY_SI_SUFFIXES.length - 1);
      const amount = magnitude >> BigInt(10 * times);
      return (integer < 0n ? '-' : '') + amount.toString() + BINARY_SI_SUFFIXES[times];
    }

    // AsCanonicalBytes: strip factors of ten, then lower the exponent to a multiple of three. Done on
    // the decimal digits (one conversion) so the cost stays linear in the number's length.
    const digits = absBig(this.unscaled).toString();
    let end = digits.length;
    while (end > 1 && digits.charCodeAt(end - 1) === 48 /* '0' */) end--;
    let exp = this.exponent + (digits.length - end);
    const padding = ((exp % 3) + 3) % 3;
    exp -= padding;
    const mantissa = (this.unscaled < 0n ? '-' : '') + digits.slice(0, end) + '0'.repeat(padding);
    const siSuffix = format === 'DecimalSI' ? DECIMAL_SI_SUFFIX.get(exp) : undefined;
    // DecimalSI stops at E (10^18); beyond it Go (since the "1000E" fix) falls back to an exponent.
    const suffix = siSuffix ?? (exp === 0 ? '' : `e${exp}`);
    return mantissa + suffix;
  }

  /** JSON.stringify prints the canonical string, as Go's MarshalJSON does. */
  toJSON(): string {
    return this.toString();
  }
}

/** Value equality of two quantities given as strings/numbers/Quantity; unparsable inputs are equal only if identical. */
export function quantityEquals(a: string | number | Quantity, b: string | number | Quantity): boolean {
  const qa = a instanceof Quantity ? a : Quantity.tryParse(a);
  const qb = b instanceof Quantity ? b : Quantity.tryParse(b);
  if (qa === undefined || qb === undefined) return a === b;
  return qa.equals(qb);
}

/** The string Kubernetes stores for `s` (parse, then Quantity.String()). Throws on invalid input. */
export function canonicalQuantity(s: string | number): string {
  return Quantity.parse(s).toString();
}
