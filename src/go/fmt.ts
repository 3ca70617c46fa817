// string.format as gopher-lua implements it (stringlib.go strFormat): Go's fmt.Sprintf applied to the Lua
// values, which are fmt.Formatters (value.go LNumber.Format / LString.Format re-enter fmt with the same
// flags, width and precision as int64, float64 or string). No library does Go's fmt over Lua values, so this
// is a port of the parts of fmt/print.go, fmt/format.go and strconv (ftoa.go, quote.go) those values reach.
// Strings are byte strings: one char per byte (0-255), as Lua and Go strings are bytes; width and precision
// count UTF-8 runes the way Go does (an invalid byte is one rune).
import { goInt64, isGoInteger, luaNumberToString } from '../lua/numbers.ts';
import { goParseNumber } from './strconv.ts';

export type FormatArg =
  | { type: 'number'; value: number }
  | { type: 'string'; value: string }
  | { type: 'boolean'; value: boolean }
  | { type: 'nil' }
  /** A table, function, thread or userdata: its Go type and its `tostring` (a byte string). */
  | { type: 'other'; goType: string; text: string };

// ---------------------------------------------------------------------------------------------------
// UTF-8 on byte strings, with unicode/utf8's rules (invalid, overlong and surrogate sequences decode to
// RuneError with width 1).

const RUNE_ERROR = 0xfffd;
const MAX_RUNE = 0x10ffff;

/** utf8.DecodeRuneInString(s[i:]) on a byte string: [rune, width]. */
export function decodeRune(s: string, i: number): [number, number] {
  const b0 = s.charCodeAt(i);
  if (b0 < 0x80) return [b0, 1];
  const cont = (j: number, lo = 0x80, hi = 0xbf): number => {
    const b = j < s.length ? s.charCodeAt(j) : -1;
    return b >= lo && b <= hi ? b & 0x3f : -1;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    const b1 = cont(i + 1);
    return b1 < 0 ? [RUNE_ERROR, 1] : [((b0 & 0x1f) << 6) | b1, 2];
  }
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const b1 = cont(i + 1, b0 === 0xe0 ? 0xa0 : 0x80, b0 === 0xed ? 0x9f : 0xbf);
    const b2 = b1 < 0 ? -1 : cont(i + 2);
    return b2 < 0 ? [RUNE_ERROR, 1] : [((b0 & 0x0f) << 12) | (b1 << 6) | b2, 3];
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const b1 = cont(i + 1, b0 === 0xf0 ? 0x90 : 0x80, b0 === 0xf4 ? 0x8f : 0xbf);
    const b2 = b1 < 0 ? -1 : cont(i + 2);
    const b3 = b2 < 0 ? -1 : cont(i + 3);
    return b3 < 0 ? [RUNE_ERROR, 1] : [((b0 & 0x07) << 18) | (b1 << 12) | (b2 << 6) | b3, 4];
  }
  return [RUNE_ERROR, 1];
}

function isValidRune(r: number): boolean {
  return r >= 0 && r <= MAX_RUNE && !(r >= 0xd800 && r <= 0xdfff);
}

/** utf8.AppendRune: invalid runes are encoded as RuneError. */
export function encodeRune(rune: number): string {
  const r = isValidRune(rune) ? rune : RUNE_ERROR;
  if (r < 0x80) return String.fromCharCode(r);
  if (r < 0x800) return String.fromCharCode(0xc0 | (r >> 6), 0x80 | (r & 0x3f));
  if (r < 0x10000) return String.fromCharCode(0xe0 | (r >> 12), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f));
  return String.fromCharCode(0xf0 | (r >> 18), 0x80 | ((r >> 12) & 0x3f), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f));
}

function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; n++) i += s.charCodeAt(i) < 0x80 ? 1 : decodeRune(s, i)[1];
  return n;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isPrint(r: number): boolean {
  if (r < 0x80) return r >= 0x20 && r < 0x7f;
  return isValidRune(r) && PRINTABLE.test(String.fromCodePoint(r));
}

const LOWER_HEX = '0123456789abcdef';

/** strconv's appendEscapedRune (graphicOnly false). */
function escapeRune(r: number, quote: string, asciiOnly: boolean): string {
  const ch = String.fromCharCode(r);
  if (ch === quote || ch === '\\') return '\\' + ch;
  if (asciiOnly ? r < 0x80 && isPrint(r) : isPrint(r)) return encodeRune(r);
  switch (r) {
    case 0x07: return '\\a';
    case 0x08: return '\\b';
    case 0x0c: return '\\f';
    case 0x0a: return '\\n';
    case 0x0d: return '\\r';
    case 0x09: return '\\t';
    case 0x0b: return '\\v';
  }
  if (r < 0x20 || r === 0x7f) return '\\x' + LOWER_HEX[r >> 4] + LOWER_HEX[r & 0xf];
  const v = isValidRune(r) ? r : RUNE_ERROR;
  return v < 0x10000 ? '\\u' + v.toString(16).padStart(4, '0') : '\\U' + v.toString(16).padStart(8, '0');
}

/** strconv.Quote / QuoteToASCII of a byte string: invalid bytes become \xNN. */
function quote(s: string, asciiOnly: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length;) {
    const [r, width] = decodeRune(s, i);
    if (width === 1 && r === RUNE_ERROR) {
      const b = s.charCodeAt(i);
      out += '\\x' + LOWER_HEX[b >> 4] + LOWER_HEX[b & 0xf];
    } else {
      out += escapeRune(r, '"', asciiOnly);
    }
    i += width;
  }
  return out + '"';
}

/** strconv.CanBackquote. */
function canBackquote(s: string): boolean {
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

// ---------------------------------------------------------------------------------------------------
// strconv.FormatFloat for 'e', 'E', 'f', 'g', 'G'. Go rounds the exact binary value to the requested
// digits, halves to even (decimal.go shouldRoundUp; the Ryu fixed-precision path agrees); JavaScript's
// toFixed/toExponential round halves up. So the digits come from the exact decimal expansion.

/** Decimal digits (no leading or trailing zeros) and decimal-point position: value = 0.d × 10^dp. */
interface Digits { d: string; dp: number }

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
  else { mantissa |= 1n << 52n; exp2 = biased - 1075; }
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

type FloatFormat = 'e' | 'E' | 'f' | 'g' | 'G';

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
    case 'e': case 'E': return fmtE(neg, digits, prec, fmt);
    case 'f': return fmtF(neg, digits, prec);
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
// fmt's printer state and the formatting routines of fmt/format.go.

const LDIGITS = '0123456789abcdefx';
const UDIGITS = '0123456789ABCDEFX';
const TOO_LARGE = 1e6;

class Printer {
  buf = '';
  wid = 0;
  prec = 0;
  widPresent = false;
  precPresent = false;
  minus = false;
  plus = false;
  sharp = false;
  space = false;
  zero = false;
  plusV = false;
  sharpV = false;
  erroring = false;

  clearFlags(): void {
    this.wid = 0; this.prec = 0;
    this.widPresent = this.precPresent = this.minus = this.plus = this.sharp = this.space = this.zero = false;
    this.plusV = this.sharpV = false;
  }

  writePadding(n: number): void {
    if (n <= 0) return;
    this.buf += (this.zero && !this.minus ? '0' : ' ').repeat(n);
  }

  /** fmt.pad / padString: width counts runes; left padding unless '-'. */
  pad(s: string): void {
    if (!this.widPresent || this.wid === 0) { this.buf += s; return; }
    const width = this.wid - runeCount(s);
    if (!this.minus) { this.writePadding(width); this.buf += s; } else { this.buf += s; this.writePadding(width); }
  }

  truncate(s: string): string {
    if (!this.precPresent) return s;
    let n = this.prec;
    for (let i = 0; i < s.length;) {
      if (--n < 0) return s.slice(0, i);
      i += s.charCodeAt(i) < 0x80 ? 1 : decodeRune(s, i)[1];
    }
    return s;
  }

  fmtS(s: string): void { this.pad(this.truncate(s)); }

  fmtSx(s: string, digits: string): void {
    let length = s.length;
    if (this.precPresent && this.prec < length) length = this.prec;
    let width = 2 * length;
    if (width > 0) {
      if (this.space) {
        if (this.sharp) width *= 2;
        width += length - 1;
      } else if (this.sharp) {
        width += 2;
      }
    } else {
      if (this.widPresent) this.writePadding(this.wid);
      return;
    }
    if (this.widPresent && this.wid > width && !this.minus) this.writePadding(this.wid - width);
    let out = this.sharp ? '0' + digits[16] : '';
    for (let i = 0; i < length; i++) {
      if (this.space && i > 0) {
        out += ' ';
        if (this.sharp) out += '0' + digits[16];
      }
      const c = s.charCodeAt(i);
      out += digits[c >> 4]! + digits[c & 0xf]!;
    }
    this.buf += out;
    if (this.widPresent && this.wid > width && this.minus) this.writePadding(this.wid - width);
  }

  fmtQ(s: string): void {
    const t = this.truncate(s);
    if (this.sharp && canBackquote(t)) { this.pad('`' + t + '`'); return; }
    this.pad(quote(t, this.plus));
  }

  fmtBoolean(v: boolean): void { this.pad(v ? 'true' : 'false'); }

  /** fmtInteger of a signed int64 (Lua numbers reach fmt as int64). */
  fmtInteger(v: bigint, base: number, verb: string, digits: string): void {
    const negative = v < 0n;
    let u = negative ? -v : v;
    let prec = 0;
    if (this.precPresent) {
      prec = this.prec;
      if (prec === 0 && u === 0n) {
        const oldZero = this.zero;
        this.zero = false;
        this.writePadding(this.wid);
        this.zero = oldZero;
        return;
      }
    } else if (this.zero && !this.minus && this.widPresent) {
      prec = this.wid;
      if (negative || this.plus || this.space) prec--;
    }
    let body = '';
    const b = BigInt(base);
    do {
      body = digits[Number(u % b)]! + body;
      u /= b;
    } while (u > 0n);
    if (prec > body.length) body = '0'.repeat(prec - body.length) + body;
    if (this.sharp) {
      if (base === 2) body = '0b' + body;
      else if (base === 8 && body[0] !== '0') body = '0' + body;
      else if (base === 16) body = '0' + digits[16] + body;
    }
    if (verb === 'O') body = '0o' + body;
    if (negative) body = '-' + body;
    else if (this.plus) body = '+' + body;
    else if (this.space) body = ' ' + body;
    const oldZero = this.zero;
    this.zero = false;
    this.pad(body);
    this.zero = oldZero;
  }

  /** fmtC: the rune of the value's uint64 bits, RuneError beyond MaxRune. */
  fmtC(v: bigint): void {
    const u = BigInt.asUintN(64, v);
    this.pad(encodeRune(u > BigInt(MAX_RUNE) ? RUNE_ERROR : Number(u)));
  }

  /** fmtQc: a single-quoted Go character literal. */
  fmtQc(v: bigint): void {
    const u = BigInt.asUintN(64, v);
    let r = u > BigInt(MAX_RUNE) ? RUNE_ERROR : Number(u);
    if (!isValidRune(r)) r = RUNE_ERROR;
    this.pad("'" + escapeRune(r, "'", this.plus) + "'");
  }

  fmtUnicode(v: bigint): void {
    const u = BigInt.asUintN(64, v);
    let prec = 4;
    if (this.precPresent && this.prec > 4) prec = this.prec;
    let out = 'U+' + u.toString(16).toUpperCase().padStart(prec, '0');
    if (this.sharp && u <= BigInt(MAX_RUNE) && isPrint(Number(u))) out += " '" + encodeRune(Number(u)) + "'";
    const oldZero = this.zero;
    this.zero = false;
    this.pad(out);
    this.zero = oldZero;
  }

  /** fmt.fmtFloat: strconv's digits, then sign, '#', and zero padding after the sign. */
  fmtFloat(v: number, verb: FloatFormat, defaultPrec: number): void {
    const prec = this.precPresent ? this.prec : defaultPrec;
    let num = goFormatFloat(v, verb, prec);
    if (num[0] !== '-' && num[0] !== '+') num = '+' + num;
    if (this.space && num[0] === '+' && !this.plus) num = ' ' + num.slice(1);
    if (num[1] === 'I' || num[1] === 'N') {
      const oldZero = this.zero;
      this.zero = false;
      if (num[1] === 'N' && !this.space && !this.plus) num = num.slice(1);
      this.pad(num);
      this.zero = oldZero;
      return;
    }
    if (this.sharp) {
      let digits = 0;
      if (verb === 'g' || verb === 'G') digits = prec === -1 ? 6 : prec;
      let tail = '';
      let hasDecimalPoint = false;
      let sawNonzeroDigit = false;
      for (let i = 1; i < num.length; i++) {
        const c = num[i];
        if (c === '.') hasDecimalPoint = true;
        else if (c === 'e' || c === 'E') { tail = num.slice(i); num = num.slice(0, i); break; }
        else {
          if (c !== '0') sawNonzeroDigit = true;
          if (sawNonzeroDigit) digits--;
        }
      }
      if (!hasDecimalPoint) {
        if (num.length === 2 && num[1] === '0') digits--;
        num += '.';
      }
      if (digits > 0) num += '0'.repeat(digits);
      num += tail;
    }
    if (this.plus || num[0] !== '+') {
      if (this.zero && !this.minus && this.widPresent && this.wid > num.length) {
        this.buf += num[0];
        this.writePadding(this.wid - num.length);
        this.buf += num.slice(1);
        return;
      }
      this.pad(num);
      return;
    }
    this.pad(num.slice(1));
  }

  // --- print.go: values by Go type ---

  badVerb(verb: string, goType: string, printValue: () => void): void {
    this.erroring = true;
    this.buf += '%!' + verb + '(' + goType + '=';
    printValue();
    this.buf += ')';
    this.erroring = false;
  }

  printInt64(v: bigint, verb: string): void {
    switch (verb) {
      case 'v': case 'd': this.fmtInteger(v, 10, verb, LDIGITS); return;
      case 'b': this.fmtInteger(v, 2, verb, LDIGITS); return;
      case 'o': case 'O': this.fmtInteger(v, 8, verb, LDIGITS); return;
      case 'x': this.fmtInteger(v, 16, verb, LDIGITS); return;
      case 'X': this.fmtInteger(v, 16, verb, UDIGITS); return;
      case 'c': this.fmtC(v); return;
      case 'q': this.fmtQc(v); return;
      case 'U': this.fmtUnicode(v); return;
      default: this.badVerb(verb, 'int64', () => this.fmtInteger(v, 10, 'v', LDIGITS));
    }
  }

  printFloat64(v: number, verb: string): void {
    switch (verb) {
      case 'v': this.fmtFloat(v, 'g', -1); return;
      case 'g': case 'G': this.fmtFloat(v, verb, -1); return;
      case 'e': case 'E': case 'f': this.fmtFloat(v, verb, 6); return;
      case 'F': this.fmtFloat(v, 'f', 6); return;
      default: this.badVerb(verb, 'float64', () => this.fmtFloat(v, 'g', -1));
    }
  }

  printString(s: string, verb: string): void {
    switch (verb) {
      case 'v': if (this.sharpV) this.fmtQ(s); else this.fmtS(s); return;
      case 's': this.fmtS(s); return;
      case 'x': this.fmtSx(s, LDIGITS); return;
      case 'X': this.fmtSx(s, UDIGITS); return;
      case 'q': this.fmtQ(s); return;
      default: this.badVerb(verb, 'string', () => this.fmtS(s));
    }
  }

  /** LNumber.Format: %q %s of its String(); integer verbs on int64(n); float verbs on float64(n). */
  printLNumber(n: number, verb: string): void {
    switch (verb) {
      case 'q': case 's': this.printString(luaNumberToString(n), verb); return;
      case 'b': case 'c': case 'd': case 'o': case 'x': case 'X': case 'U': this.printInt64(goInt64(n), verb); return;
      case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': this.printFloat64(n, verb); return;
      case 'i': this.printInt64(goInt64(n), 'd'); return;
      default:
        if (isGoInteger(n)) this.printInt64(goInt64(n), verb);
        else this.printFloat64(n, verb);
    }
  }

  /**
   * LString.Format: %d and %i print the string itself when parseNumber accepts it and 0 otherwise (the
   * check is inverted in gopher-lua); every other verb formats the Go string.
   */
  printLString(s: string, verb: string): void {
    if (verb === 'd' || verb === 'i') {
      if (goParseNumber(s) === undefined) this.printLNumber(0, 'd');
      else this.printString(s, 's');
      return;
    }
    this.printString(s, verb);
  }

  /** The value badVerb shows: printArg(arg, 'v') with methods off, i.e. by reflection. */
  printReflected(arg: FormatArg): void {
    switch (arg.type) {
      case 'number': this.fmtFloat(arg.value, 'g', -1); return;
      case 'string': this.fmtS(arg.value); return;
      case 'boolean': this.fmtBoolean(arg.value); return;
      case 'nil': this.buf += this.sharpV ? '&lua.LNilType{}' : '&{}'; return;
      default: this.buf += arg.text;
    }
  }

  printArg(arg: FormatArg, verb: string): void {
    if (verb === 'T') { this.fmtS(goTypeName(arg)); return; }
    if (verb === 'p' && arg.type !== 'other' && arg.type !== 'nil') {
      this.badVerb(verb, goTypeName(arg), () => this.printReflected(arg));
      return;
    }
    if (verb === 'w') { // only Errorf wraps errors
      this.badVerb(verb, goTypeName(arg), () => this.printReflected(arg));
      return;
    }
    switch (arg.type) {
      case 'number': this.printLNumber(arg.value, verb); return;
      case 'string': this.printLString(arg.value, verb); return;
      case 'boolean': {
        const text = arg.value ? 'true' : 'false';
        if (!this.sharpV && 'vsxXq'.includes(verb)) { this.printString(text, verb); return; } // Stringer
        if (verb === 't' || verb === 'v') this.fmtBoolean(arg.value);
        else this.badVerb(verb, 'lua.LBool', () => this.fmtBoolean(arg.value));
        return;
      }
      case 'nil':
        if (!this.sharpV && 'vsxXq'.includes(verb)) { this.printString('nil', verb); return; } // Stringer
        this.printReflected(arg); // a pointer to an empty struct
        return;
      default:
        if (!this.sharpV && 'vsxXq'.includes(verb)) { this.printString(arg.text, verb); return; } // Stringer
        this.buf += `%!${verb}(${arg.goType})`; // Go would dump the struct's internals
    }
  }
}

function goTypeName(arg: FormatArg): string {
  switch (arg.type) {
    case 'number': return 'lua.LNumber';
    case 'string': return 'lua.LString';
    case 'boolean': return 'lua.LBool';
    case 'nil': return '*lua.LNilType';
    default: return arg.goType;
  }
}

/** parsenum: a decimal number, or not present (also when it exceeds fmt's 1e6 limit). */
function parseNum(s: string, start: number): { num: number; isNum: boolean; next: number } {
  let num = 0;
  let isNum = false;
  let i = start;
  for (; i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57; i++) {
    if (num > TOO_LARGE) return { num: 0, isNum: false, next: s.length };
    num = num * 10 + s.charCodeAt(i) - 48;
    isNum = true;
  }
  return { num, isNum, next: i };
}

/** fmt.Sprintf(format, args...): format and result are byte strings. */
export function goSprintf(format: string, args: FormatArg[]): string {
  const p = new Printer();
  const end = format.length;
  let argNum = 0;
  let afterIndex = false;
  let reordered = false;
  let goodArgNum = true;

  // argNumber: an explicit [n] index at i, if any.
  const argNumber = (i: number): { index: number; next: number; found: boolean } => {
    if (i >= end || format[i] !== '[') return { index: argNum, next: i, found: false };
    reordered = true;
    let result: { index: number; wid: number; ok: boolean } = { index: 0, wid: 1, ok: false };
    if (end - i >= 3) {
      for (let j = i + 1; j < end; j++) {
        if (format[j] === ']') {
          const n = parseNum(format.slice(0, j), i + 1);
          result = !n.isNum || n.next !== j ? { index: 0, wid: j - i + 1, ok: false } : { index: n.num - 1, wid: j - i + 1, ok: true };
          break;
        }
      }
    }
    if (result.ok && result.index >= 0 && result.index < args.length) return { index: result.index, next: i + result.wid, found: true };
    goodArgNum = false;
    return { index: argNum, next: i + result.wid, found: result.ok };
  };

  let i = 0;
  while (i < end) {
    goodArgNum = true;
    const lasti = i;
    while (i < end && format[i] !== '%') i++;
    if (i > lasti) p.buf += format.slice(lasti, i);
    if (i >= end) break;
    i++;
    p.clearFlags();
    for (; i < end; i++) {
      const c = format[i];
      if (c === '#') p.sharp = true;
      else if (c === '0') p.zero = true;
      else if (c === '+') p.plus = true;
      else if (c === '-') p.minus = true;
      else if (c === ' ') p.space = true;
      else break;
    }
    let at = argNumber(i);
    argNum = at.index; i = at.next; afterIndex = at.found;

    if (i < end && format[i] === '*') {
      i++;
      p.widPresent = false;
      if (argNum < args.length) argNum++; // a Lua number is never a Go int
      p.buf += '%!(BADWIDTH)';
      afterIndex = false;
    } else {
      const n = parseNum(format, i);
      p.wid = n.num; p.widPresent = n.isNum; i = n.next;
      if (afterIndex && p.widPresent) goodArgNum = false;
    }

    if (i + 1 < end && format[i] === '.') {
      i++;
      if (afterIndex) goodArgNum = false;
      at = argNumber(i);
      argNum = at.index; i = at.next; afterIndex = at.found;
      if (i < end && format[i] === '*') {
        i++;
        p.prec = 0; p.precPresent = false;
        if (argNum < args.length) argNum++;
        p.buf += '%!(BADPREC)';
        afterIndex = false;
      } else {
        const n = parseNum(format, i);
        p.prec = n.num; p.precPresent = n.isNum; i = n.next;
        if (!p.precPresent) { p.prec = 0; p.precPresent = true; }
      }
    }

    if (!afterIndex) {
      at = argNumber(i);
      argNum = at.index; i = at.next; afterIndex = at.found;
    }

    if (i >= end) { p.buf += '%!(NOVERB)'; break; }

    let verb = format[i]!;
    let size = 1;
    if (verb.charCodeAt(0) >= 0x80) {
      const [r, width] = decodeRune(format, i);
      verb = encodeRune(r);
      size = width;
    }
    i += size;

    if (verb === '%') { p.buf += '%'; continue; } // takes no argument; ignores width and precision
    if (!goodArgNum) { p.buf += '%!' + verb + '(BADINDEX)'; continue; }
    if (argNum >= args.length) { p.buf += '%!' + verb + '(MISSING)'; continue; }
    if (verb === 'v' || verb === 'w') {
      p.sharpV = p.sharp; p.sharp = false;
      p.plusV = p.plus; p.plus = false;
    }
    if (p.zero && p.minus) p.zero = false; // zero padding only to the left
    p.printArg(args[argNum]!, verb);
    argNum++;
  }

  if (!reordered && argNum < args.length) {
    p.clearFlags();
    p.buf += '%!(EXTRA ';
    args.slice(argNum).forEach((arg, k) => {
      if (k > 0) p.buf += ', ';
      p.buf += goTypeName(arg) + '=';
      p.printArg(arg, 'v');
    });
    p.buf += ')';
  }
  return p.buf;
}

/**
 * The arguments gopher-lua hands to Sprintf: as many as the format has '%' minus its "%%" pairs
 * (strings.Count, left to right without overlap); the rest are dropped.
 */
export function goFormatArgumentCount(format: string): number {
  let percent = 0;
  let pairs = 0;
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') continue;
    percent++;
  }
  for (let i = 0; i < format.length - 1; i++) {
    if (format[i] === '%' && format[i + 1] === '%') { pairs++; i++; }
  }
  return percent - pairs;
}

