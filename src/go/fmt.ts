// Go's fmt.Sprintf: doPrintf's verb parsing (fmt/print.go) and the formatting routines of
// fmt/format.go, for Lua's string.format and for messages JSONPath words as client-go does. No library
// does Go's fmt, so this is a port of those files. Strings are byte strings (src/go/utf8.ts): width and
// precision count UTF-8 runes the way Go does (an invalid byte is one rune).
import { canBackquote, goFormatFloat, goQuote, goQuoteRune, isPrint, type FloatFormat } from './strconv.ts';
import { decodeRune, decodeUtf8, encodeRune, encodeUtf8, MAX_RUNE, RUNE_ERROR, runeCount } from './utf8.ts';

/** fmt's %v of a float64, i.e. strconv.FormatFloat(x, 'g', -1, 64) ("1e+06", "0.5", "-0", "+Inf"). */
export function goSprintFloat(x: number): string {
  const abs = Math.abs(x);
  // From 1e-4 to below 1e6 Go writes the shortest digits without an exponent, as ECMAScript does.
  if (abs >= 1e-4 && abs < 1e6) return String(x);
  return goFormatFloat(x, 'g', -1);
}

const LDIGITS = '0123456789abcdefx';
const UDIGITS = '0123456789ABCDEFX';
const TOO_LARGE = 1e6;
/** What an append costs beyond its characters (V8 concatenates by linking, a node of up to 32 bytes). */
const APPEND_BYTES = 32;

/** fmt's printer: the output so far, the current verb's flags, and fmt/format.go's routines. */
export class Printer {
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
  /**
   * Called before the output grows (or a verb builds something in proportion to a width, a precision or
   * an argument) by about `bytes`, with the output's length once it has; it may throw to stop the
   * formatting (string.format's memory budget).
   */
  reserve: ((bytes: number, outputLength: number) => void) | undefined;

  /** Appends to the output. */
  write(s: string): void {
    this.reserve?.(s.length + APPEND_BYTES, this.buf.length + s.length);
    this.buf += s;
  }

  clearFlags(): void {
    this.wid = 0;
    this.prec = 0;
    this.widPresent = this.precPresent = this.minus = this.plus = this.sharp = this.space = this.zero = false;
    this.plusV = this.sharpV = false;
  }

  writePadding(n: number): void {
    if (n <= 0) return;
    this.reserve?.(n + APPEND_BYTES, this.buf.length + n); // before the padding is made (n reaches 1,000,000)
    this.buf += (this.zero && !this.minus ? '0' : ' ').repeat(n);
  }

  /** fmt.pad / padString: width counts runes; left padding unless '-'. */
  pad(s: string): void {
    if (!this.widPresent || this.wid === 0) {
      this.write(s);
      return;
    }
    const width = this.wid - runeCount(s);
    if (!this.minus) {
      this.writePadding(width);
      this.write(s);
    } else {
      this.write(s);
      this.writePadding(width);
    }
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

  fmtS(s: string): void {
    this.pad(this.truncate(s));
  }

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
    // Written as bytes (width is exactly their count), then read as one string.
    this.reserve?.(2 * width, this.buf.length);
    const out = Buffer.allocUnsafe(width);
    let at = 0;
    const x = digits.charCodeAt(16);
    if (this.sharp) {
      out[at++] = 0x30;
      out[at++] = x;
    }
    for (let i = 0; i < length; i++) {
      if (this.space && i > 0) {
        out[at++] = 0x20;
        if (this.sharp) {
          out[at++] = 0x30;
          out[at++] = x;
        }
      }
      const c = s.charCodeAt(i);
      out[at++] = digits.charCodeAt(c >> 4);
      out[at++] = digits.charCodeAt(c & 0xf);
    }
    this.write(out.toString('latin1', 0, at));
    if (this.widPresent && this.wid > width && this.minus) this.writePadding(this.wid - width);
  }

  fmtQ(s: string): void {
    const t = this.truncate(s);
    if (this.sharp && canBackquote(t)) {
      this.pad('`' + t + '`');
      return;
    }
    // goQuote's buffer (up to four bytes a byte: \xNN) and the text read from it
    this.reserve?.(8 * t.length + 4, this.buf.length);
    this.pad(goQuote(t, this.plus));
  }

  fmtBoolean(v: boolean): void {
    this.pad(v ? 'true' : 'false');
  }

  /** fmtInteger of a signed int64. */
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
    this.reserve?.(prec, this.buf.length);
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
    this.pad(goQuoteRune(u > BigInt(MAX_RUNE) ? RUNE_ERROR : Number(u), this.plus));
  }

  fmtUnicode(v: bigint): void {
    const u = BigInt.asUintN(64, v);
    let prec = 4;
    if (this.precPresent && this.prec > 4) prec = this.prec;
    this.reserve?.(prec, this.buf.length);
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
    // The digits (a float64 has at most 767), the precision's zeros, and '#''s zeros, as a few pieces.
    this.reserve?.(2 * Math.max(prec, 0), this.buf.length);
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
        else if (c === 'e' || c === 'E') {
          tail = num.slice(i);
          num = num.slice(0, i);
          break;
        } else {
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
        this.write(num[0]);
        this.writePadding(this.wid - num.length);
        this.write(num.slice(1));
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
    this.write('%!' + verb + '(' + goType + '=');
    printValue();
    this.write(')');
    this.erroring = false;
  }

  printInt64(v: bigint, verb: string): void {
    switch (verb) {
      case 'v':
      case 'd':
        this.fmtInteger(v, 10, verb, LDIGITS);
        return;
      case 'b':
        this.fmtInteger(v, 2, verb, LDIGITS);
        return;
      case 'o':
      case 'O':
        this.fmtInteger(v, 8, verb, LDIGITS);
        return;
      case 'x':
        this.fmtInteger(v, 16, verb, LDIGITS);
        return;
      case 'X':
        this.fmtInteger(v, 16, verb, UDIGITS);
        return;
      case 'c':
        this.fmtC(v);
        return;
      case 'q':
        this.fmtQc(v);
        return;
      case 'U':
        this.fmtUnicode(v);
        return;
      default:
        this.badVerb(verb, 'int64', () => this.fmtInteger(v, 10, 'v', LDIGITS));
    }
  }

  printFloat64(v: number, verb: string): void {
    switch (verb) {
      case 'v':
        this.fmtFloat(v, 'g', -1);
        return;
      case 'g':
      case 'G':
        this.fmtFloat(v, verb, -1);
        return;
      case 'e':
      case 'E':
      case 'f':
        this.fmtFloat(v, verb, 6);
        return;
      case 'F':
        this.fmtFloat(v, 'f', 6);
        return;
      default:
        this.badVerb(verb, 'float64', () => this.fmtFloat(v, 'g', -1));
    }
  }

  /** fmtBool. */
  printBool(v: boolean, verb: string): void {
    if (verb === 't' || verb === 'v') this.fmtBoolean(v);
    else this.badVerb(verb, 'bool', () => this.fmtBoolean(v));
  }

  printString(s: string, verb: string): void {
    switch (verb) {
      case 'v':
        if (this.sharpV) this.fmtQ(s);
        else this.fmtS(s);
        return;
      case 's':
        this.fmtS(s);
        return;
      case 'x':
        this.fmtSx(s, LDIGITS);
        return;
      case 'X':
        this.fmtSx(s, UDIGITS);
        return;
      case 'q':
        this.fmtQ(s);
        return;
      default:
        this.badVerb(verb, 'string', () => this.fmtS(s));
    }
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

/**
 * How goSprintf prints one of the caller's values (Go's printArg and the value's Format or String
 * method), and the Go type name that %T and the error forms (%!verb(type=value), EXTRA) show.
 */
export interface ArgPrinter<T> {
  printArg(p: Printer, arg: T, verb: string): void;
  typeName(arg: T): string;
}

/**
 * fmt.Sprintf(format, args...): doPrintf's verb parsing; format and result are byte strings. `reserve`
 * is called before the output grows (Printer.reserve).
 */
export function goSprintf<T>(format: string, args: readonly T[], printer: ArgPrinter<T>, reserve?: Printer['reserve']): string {
  const p = new Printer();
  p.reserve = reserve;
  const end = format.length;
  let argNum = 0;
  let afterIndex: boolean;
  let reordered = false;
  let goodArgNum: boolean;

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
    if (i > lasti) p.write(format.slice(lasti, i));
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
    argNum = at.index;
    i = at.next;
    afterIndex = at.found;

    if (i < end && format[i] === '*') {
      i++;
      p.widPresent = false;
      if (argNum < args.length) argNum++; // a Lua number is never a Go int
      p.write('%!(BADWIDTH)');
      afterIndex = false;
    } else {
      const n = parseNum(format, i);
      p.wid = n.num;
      p.widPresent = n.isNum;
      i = n.next;
      if (afterIndex && p.widPresent) goodArgNum = false;
    }

    if (i + 1 < end && format[i] === '.') {
      i++;
      if (afterIndex) goodArgNum = false;
      at = argNumber(i);
      argNum = at.index;
      i = at.next;
      afterIndex = at.found;
      if (i < end && format[i] === '*') {
        i++;
        p.prec = 0;
        p.precPresent = false;
        if (argNum < args.length) argNum++;
        p.write('%!(BADPREC)');
        afterIndex = false;
      } else {
        const n = parseNum(format, i);
        p.prec = n.num;
        p.precPresent = n.isNum;
        i = n.next;
        if (!p.precPresent) {
          p.prec = 0;
          p.precPresent = true;
        }
      }
    }

    if (!afterIndex) {
      at = argNumber(i);
      argNum = at.index;
      i = at.next;
    }

    if (i >= end) {
      p.write('%!(NOVERB)');
      break;
    }

    let verb = format[i]!;
    let size = 1;
    if (verb.charCodeAt(0) >= 0x80) {
      const [r, width] = decodeRune(format, i);
      verb = encodeRune(r);
      size = width;
    }
    i += size;

    if (verb === '%') {
      p.write('%');
      continue;
    } // takes no argument; ignores width and precision
    if (!goodArgNum) {
      p.write('%!' + verb + '(BADINDEX)');
      continue;
    }
    if (argNum >= args.length) {
      p.write('%!' + verb + '(MISSING)');
      continue;
    }
    if (verb === 'v' || verb === 'w') {
      p.sharpV = p.sharp;
      p.sharp = false;
      p.plusV = p.plus;
      p.plus = false;
    }
    if (p.zero && p.minus) p.zero = false; // zero padding only to the left
    printer.printArg(p, args[argNum]!, verb);
    argNum++;
  }

  if (!reordered && argNum < args.length) {
    p.clearFlags();
    p.write('%!(EXTRA ');
    args.slice(argNum).forEach((arg, k) => {
      if (k > 0) p.write(', ');
      p.write(printer.typeName(arg) + '=');
      printer.printArg(p, arg, 'v');
    });
    p.write(')');
  }
  return p.buf;
}

/** The Go values goSprintf prints without help: int64 (bigint), float64, string (bytes) and bool. */
export type GoBasicValue = bigint | number | string | boolean;

/** printArg's cases for the basic types. */
export const basicValues: ArgPrinter<GoBasicValue> = {
  printArg(p, arg, verb) {
    if (verb === 'T') {
      p.fmtS(this.typeName(arg));
      return;
    }
    if (verb === 'p') {
      p.badVerb(verb, this.typeName(arg), () => this.printArg(p, arg, 'v'));
      return;
    }
    switch (typeof arg) {
      case 'bigint':
        p.printInt64(arg, verb);
        return;
      case 'number':
        p.printFloat64(arg, verb);
        return;
      case 'string':
        p.printString(arg, verb);
        return;
      default:
        p.printBool(arg, verb);
    }
  },
  typeName(arg) {
    switch (typeof arg) {
      case 'bigint':
        return 'int64';
      case 'number':
        return 'float64';
      case 'string':
        return 'string';
      default:
        return 'bool';
    }
  },
};

/** goSprintf over JavaScript strings: the format and string arguments as UTF-8, the result read back. */
export function goSprintfText(format: string, ...args: GoBasicValue[]): string {
  const bytes = args.map((arg) => (typeof arg === 'string' ? encodeUtf8(arg) : arg));
  return decodeUtf8(goSprintf(encodeUtf8(format), bytes, basicValues));
}
