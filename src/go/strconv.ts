// Go's strconv: ParseInt, ParseUint, ParseFloat, FormatFloat and Quote, as Lua (gopher-lua's tonumber
// and string.format), JSONPath (template numbers, messages) and fmt (src/go/fmt.ts) need them. No
// library reproduces Go's parsers and exact float digits; Go's own sources (strconv/atoi.go, atof.go,
// ftoa.go, quote.go) are the reference. Strings given to Quote are byte strings (src/go/utf8.ts).
import { decodeRune, encodeRune, isValidRune, RUNE_ERROR } from './utf8.ts';

const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** strconv.ParseInt(s, base, 64), or undefined where Go returns an error (bad syntax or out of range). */
export function goParseInt(input: string, base: number): bigint | undefined {
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
  return negative ? -magnitude : magnitude;
}

/** strconv.ParseUint(s, base, 64); base 0 reads a 0b, 0o, 0x or 0 prefix and allows underscores. */
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

/** Go's digit rule: ASCII only (String.toLowerCase would turn the Kelvin sign into "k" and "İ" into "i"). */
function digitValue(ch: string): number | undefined {
  const c = ch.charCodeAt(0);
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 122) return c - 97 + 10;
  if (c >= 65 && c <= 90) return c - 65 + 10;
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
  if (s[i] === '+' || s[i] === '-') {
    negative = s[i] === '-';
    i++;
  }
  let hex = false;
  if (i + 2 < s.length && s[i] === '0' && (s[i + 1] === 'x' || s[i + 1] === 'X')) {
    hex = true;
    i += 2;
  }
  const isDigit = (c: string | undefined) => c !== undefined && (hex ? /[0-9a-fA-F]/.test(c) : c >= '0' && c <= '9');
  let mantissa = '';
  let fractionDigits = 0;
  let sawDot = false;
  let sawDigits = false;
  let underscores = false;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === '_') {
      underscores = true;
      continue;
    }
    if (c === '.') {
      if (sawDot) break;
      sawDot = true;
      continue;
    }
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
    else if (s[i] === '-') {
      sign = -1;
      i++;
    }
    if (i >= s.length || s[i]! < '0' || s[i]! > '9') return undefined;
    let e = 0;
    for (; i < s.length && ((s[i]! >= '0' && s[i]! <= '9') || s[i] === '_'); i++) {
      if (s[i] === '_') {
        underscores = true;
        continue;
      }
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

// ---------------------------------------------------------------------------------------------------
// strconv.FormatFloat for 'e', 'E', 'f', 'g', 'G'. Go rounds the exact binary value to the requested
// digits, halves to even (decimal.go shouldRoundUp; the Ryu fixed-precision path agrees); JavaScript's
// toFixed/toExponential round halves up. So the digits come from the exact decimal expansion.

/** Decimal digits (no leading or trailing zeros) and decimal-point position: value = 0.d × 10^dp. */
interface Digits {
  d: string;
  dp: number;
}

const float64View = new DataView(new ArrayBuffer(8));
const powersOfFive: bigint[] = [1n];

function powerOfFive(k: number): bigint {
  while (powersOfFive.length <= k) powersOfFive.push(powersOfFive[powersOfFive.length - 1]! * 5n);
  return powersOfFive[k]!;
}

/** Every digit of a finite |x| (a float64 has at most 767 significant decimal digits). */
function exactDigits(abs: number): Digits {
  if (abs === 0) return { d: '', dp: 0 };
  float64View.setFloat64(0, abs);
  const hi = float64View.getUint32(0);
  const lo = float64View.getUint32(4);
  const biased = hi >>> 20;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp2: number;
  if (biased === 0) exp2 = -1074;
  else {
    mantissa |= 1n << 52n;
    exp2 = biased - 1075;
  }
  let digits: string;
  let dp: number;
  if (exp2 >= 0) {
    digits = (mantissa << BigInt(exp2)).toString();
    dp = digits.length;
  } else {
    // mantissa / 2^k = mantissa * 5^k / 10^k
    digits = (mantissa * powerOfFive(-exp2)).toString();
    dp = digits.length + exp2;
  }
  return { d: digits.replace(/0+$/, ''), dp };
}

/** Shortest digits that read back as x (Ryu in Go, the Number-to-String algorithm in JS). */
function shortestDigits(abs: number): Digits {
  if (abs === 0) return { d: '', dp: 0 };
  const [mantissa, exponent] = abs.toExponential().split('e');
  return { d: mantissa!.replace('.', '').replace(/0+$/, ''), dp: Number(exponent) + 1 };
}

/** decimal.Round(nd): to nd digits, exact halves to even; nd < 0 or nd >= digits leaves it unchanged. */
function roundDigits(x: Digits, nd: number): Digits {
  if (nd < 0 || nd >= x.d.length) return x;
  const next = x.d.charCodeAt(nd) - 48;
  const up = next === 5 && nd + 1 === x.d.length ? nd > 0 && (x.d.charCodeAt(nd - 1) - 48) % 2 === 1 : next >= 5;
  if (!up) return { d: x.d.slice(0, nd).replace(/0+$/, ''), dp: x.dp };
  for (let i = nd - 1; i >= 0; i--) {
    if (x.d[i] !== '9') return { d: x.d.slice(0, i) + String.fromCharCode(x.d.charCodeAt(i) + 1), dp: x.dp };
  }
  return { d: '1', dp: x.dp + 1 };
}

/** strconv fmtE: -d.ddddde±dd. */
function fmtE(neg: boolean, x: Digits, prec: number, expChar: string): string {
  let out = neg ? '-' : '';
  out += x.d.length > 0 ? x.d[0] : '0';
  if (prec > 0) {
    out += '.' + x.d.slice(1, Math.min(x.d.length, prec + 1));
    const written = Math.max(0, Math.min(x.d.length, prec + 1) - 1);
    out += '0'.repeat(prec - written);
  }
  let exp = x.d.length === 0 ? 0 : x.dp - 1;
  const sign = exp < 0 ? '-' : '+';
  exp = Math.abs(exp);
  return out + expChar + sign + (exp < 10 ? '0' + exp : String(exp));
}

/** strconv fmtF: -ddddddd.ddddd. */
function fmtF(neg: boolean, x: Digits, prec: number): string {
  let out = neg ? '-' : '';
  if (x.dp > 0) {
    const m = Math.min(x.d.length, x.dp);
    out += x.d.slice(0, m) + '0'.repeat(x.dp - m);
  } else {
    out += '0';
  }
  if (prec > 0) {
    out += '.';
    // digit j of the fraction is d[dp + j - 1] when that index exists
    const start = x.dp;
    if (start >= 0) {
      const frac = x.d.slice(start, start + prec);
      out += frac + '0'.repeat(prec - frac.length);
    } else {
      const leading = Math.min(prec, -start);
      const frac = x.d.slice(0, prec - leading);
      out += '0'.repeat(leading) + frac + '0'.repeat(prec - leading - frac.length);
    }
  }
  return out;
}

export type FloatFormat = 'e' | 'E' | 'f' | 'g' | 'G';

/** strconv.FormatFloat(x, fmt, prec, 64); prec < 0 means the shortest digits that read back as x. */
export function goFormatFloat(x: number, fmt: FloatFormat, precision: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  const neg = x < 0 || Object.is(x, -0);
  const abs = Math.abs(x);
  let prec = precision;
  const shortest = prec < 0;
  let digits: Digits;
  if (shortest) {
    digits = shortestDigits(abs);
    if (fmt === 'e' || fmt === 'E') prec = Math.max(digits.d.length - 1, 0);
    else if (fmt === 'f') prec = Math.max(digits.d.length - digits.dp, 0);
    else prec = digits.d.length;
  } else {
    digits = exactDigits(abs);
    if (fmt === 'e' || fmt === 'E') digits = roundDigits(digits, prec + 1);
    else if (fmt === 'f') digits = roundDigits(digits, digits.dp + prec);
    else {
      if (prec === 0) prec = 1;
      digits = roundDigits(digits, prec);
    }
  }
  switch (fmt) {
    case 'e':
    case 'E':
      return fmtE(neg, digits, prec, fmt);
    case 'f':
      return fmtF(neg, digits, prec);
    default: {
      const nd = digits.d.length;
      let eprec = prec;
      if (eprec > nd && nd >= digits.dp) eprec = nd;
      // %e is used if the exponent is less than -4 or at least the precision (6 for the shortest form).
      if (shortest) eprec = 6;
      const exp = digits.dp - 1;
      if (exp < -4 || exp >= eprec) {
        if (prec > nd) prec = nd;
        return fmtE(neg, digits, prec - 1, fmt === 'g' ? 'e' : 'E');
      }
      if (prec > digits.dp) prec = nd;
      return fmtF(neg, digits, Math.max(prec - digits.dp, 0));
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// strconv.Quote and its helpers, on byte strings.

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isPrint(r: number): boolean {
  if (r < 0x80) return r >= 0x20 && r < 0x7f;
  return isValidRune(r) && PRINTABLE.test(String.fromCodePoint(r));
}

const LOWER_HEX = '0123456789abcdef';

/** strconv's appendEscapedRune (graphicOnly false), as a byte string. */
function escapeRune(r: number, quote: string, asciiOnly: boolean): string {
  const ch = String.fromCharCode(r);
  if (ch === quote || ch === '\\') return '\\' + ch;
  if (asciiOnly ? r < 0x80 && isPrint(r) : isPrint(r)) return encodeRune(r);
  switch (r) {
    case 0x07:
      return '\\a';
    case 0x08:
      return '\\b';
    case 0x0c:
      return '\\f';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    case 0x0b:
      return '\\v';
  }
  if (r < 0x20 || r === 0x7f) return '\\x' + LOWER_HEX[r >> 4] + LOWER_HEX[r & 0xf];
  const v = isValidRune(r) ? r : RUNE_ERROR;
  return v < 0x10000 ? '\\u' + v.toString(16).padStart(4, '0') : '\\U' + v.toString(16).padStart(8, '0');
}

/**
 * strconv.Quote (or QuoteToASCII when asciiOnly) of a byte string: invalid bytes become \xNN. Written into
 * one buffer (an escape is at most four bytes a byte), so a long string costs about its length in memory.
 */
export function goQuote(s: string, asciiOnly: boolean): string {
  const out = Buffer.allocUnsafe(4 * s.length + 2);
  out[0] = 0x22;
  let at = 1;
  for (let i = 0; i < s.length;) {
    const [r, width] = decodeRune(s, i);
    if (width === 1 && r === RUNE_ERROR) {
      const b = s.charCodeAt(i);
      at += out.write('\\x' + LOWER_HEX[b >> 4] + LOWER_HEX[b & 0xf], at, 'latin1');
    } else if (r >= 0x20 && r < 0x7f && r !== 0x22 && r !== 0x5c) {
      out[at++] = r; // printable ASCII, the usual case, as it is
    } else {
      at += out.write(escapeRune(r, '"', asciiOnly), at, 'latin1');
    }
    i += width;
  }
  out[at++] = 0x22;
  return out.toString('latin1', 0, at);
}

/** strconv.QuoteRune (or QuoteRuneToASCII when asciiOnly): a single-quoted Go character literal. */
export function goQuoteRune(rune: number, asciiOnly: boolean): string {
  return "'" + escapeRune(isValidRune(rune) ? rune : RUNE_ERROR, "'", asciiOnly) + "'";
}

/** strconv.CanBackquote of a byte string. */
export function canBackquote(s: string): boolean {
  for (let i = 0; i < s.length;) {
    const [r, width] = decodeRune(s, i);
    i += width;
    if (width > 1) {
      if (r === 0xfeff) return false;
      continue;
    }
    if (r === RUNE_ERROR) return false;
    if ((r < 0x20 && r !== 0x09) || r === 0x60 || r === 0x7f) return false;
  }
  return true;
}
