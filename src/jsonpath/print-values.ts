// Go's text formatting, as client-go's JSONPath printer and its error messages use it. Hand-written:
// no JavaScript library reproduces fmt's %v, strconv's shortest 'g' format or encoding/json's output
// byte for byte, and label values must match what Karmada computes exactly.

import { GoByte, GoInt, INVALID, isJsonMap, sortedMapKeys, wellFormed, type GoValue } from './values.ts';

/**
 * fmt's %v of a float64: strconv.FormatFloat(f, 'g', -1, 64). With the shortest precision, strconv
 * switches to the exponent form when the decimal exponent is < -4 or >= 6 (ftoa.go: `if shortest
 * { eprec = 6 }`), so 1000000 → "1e+06" but 123456 → "123456"; exponents have at least two digits.
 */
export function formatGoFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const sign = value < 0 ? '-' : '';
  // toExponential() without an argument gives the shortest round-tripping digits, as strconv does.
  const [mantissa, exponentText] = Math.abs(value).toExponential().split('e');
  const digits = mantissa!.replace('.', '');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const expSign = exponent < 0 ? '-' : '+';
    return `${sign}${digits[0]}${fraction}e${expSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  const pointAt = exponent + 1;
  if (pointAt <= 0) return `${sign}0.${'0'.repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return `${sign}${digits}${'0'.repeat(pointAt - digits.length)}`;
  return `${sign}${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

/**
 * encoding/json's float64: 'f' format unless abs < 1e-6 or abs >= 1e21, then 'e' with "e-07"
 * shortened to "e-7". That is exactly ECMAScript's Number-to-String, except for negative zero.
 */
export function formatJsonFloat(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`json: unsupported value: ${formatGoFloat(value)}`);
  if (Object.is(value, -0)) return '-0';
  return String(value);
}

const HEX = '0123456789abcdef';

/** encoding/json's string encoder with HTML escaping on (json.Marshal's default, Go >= 1.22). */
export function marshalJsonString(text: string): string {
  let out = '"';
  for (const ch of wellFormed(text)) {
    const code = ch.codePointAt(0)!;
    if (code < 0x80) {
      if (code >= 0x20 && ch !== '"' && ch !== '\\' && ch !== '<' && ch !== '>' && ch !== '&') {
        out += ch;
        continue;
      }
      switch (ch) {
        case '"':
          out += '\\"';
          break;
        case '\\':
          out += '\\\\';
          break;
        case '\b':
          out += '\\b';
          break;
        case '\f':
          out += '\\f';
          break;
        case '\n':
          out += '\\n';
          break;
        case '\r':
          out += '\\r';
          break;
        case '\t':
          out += '\\t';
          break;
        default:
          out += `\\u00${HEX[code >> 4]}${HEX[code & 0xf]}`;
      }
    } else if (code === 0x2028 || code === 0x2029) {
      out += `\\u202${HEX[code & 0xf]}`;
    } else {
      out += ch;
    }
  }
  return `${out}"`;
}

/** Text written piece by piece that refuses to grow past `limit` characters. */
export class BoundedText {
  private readonly parts: string[] = [];
  private size = 0;
  private readonly limit: number;
  private readonly onFull: () => Error;

  /** `onFull` makes the error thrown when a piece would pass the limit. */
  constructor(limit: number, onFull: () => Error) {
    this.limit = limit;
    this.onFull = onFull;
  }

  get length(): number {
    return this.size;
  }

  write(piece: string): void {
    if (this.size + piece.length > this.limit) {
      const room = this.limit - this.size;
      if (room > 0) this.parts.push(piece.slice(0, room));
      this.size = this.limit;
      throw this.onFull();
    }
    this.parts.push(piece);
    this.size += piece.length;
  }

  toString(): string {
    return this.parts.join('');
  }
}

/** json.Marshal of a value decoded into interface{}: compact, map keys sorted. */
export function marshalGoJson(value: GoValue): string {
  const out = new BoundedText(Infinity, () => new Error('unreachable'));
  writeGoJson(value, out);
  return out.toString();
}

/** marshalGoJson into `out`, so a bounded writer stops a large value early. */
export function writeGoJson(value: GoValue, out: BoundedText): void {
  if (value === null || value === undefined || value === INVALID) return out.write('null');
  if (value instanceof GoInt) return out.write(value.value.toString());
  if (value instanceof GoByte) return out.write(String(value.value));
  if (Array.isArray(value)) {
    out.write('[');
    value.forEach((item, i) => {
      if (i > 0) out.write(',');
      writeGoJson(item, out);
    });
    return out.write(']');
  }
  if (isJsonMap(value)) {
    out.write('{');
    sortedMapKeys(value).forEach((key, i) => {
      out.write(i > 0 ? `,${marshalJsonString(key)}:` : `${marshalJsonString(key)}:`);
      writeGoJson(value[key], out);
    });
    return out.write('}');
  }
  switch (typeof value) {
    case 'string':
      return out.write(marshalJsonString(value));
    case 'number':
      return out.write(formatJsonFloat(value));
    case 'boolean':
      return out.write(value ? 'true' : 'false');
    default:
      throw new Error(`json: unsupported type: ${typeof value}`);
  }
}

class TextFull extends Error {}

/**
 * fmt's %v of an interface{} value (and of a reflect.Value holding one), as in error messages. With a
 * `limit`, the text stops there and ends in "..." (client-go prints the whole value).
 */
export function sprintGoValue(value: GoValue, limit = Infinity): string {
  const out = new BoundedText(limit, () => new TextFull());
  try {
    writeGoValue(value, out);
  } catch (error) {
    if (!(error instanceof TextFull)) throw error;
    return `${out.toString()}...`;
  }
  return out.toString();
}

function writeGoValue(value: GoValue, out: BoundedText): void {
  if (value === INVALID) return out.write('<invalid reflect.Value>');
  if (value === null || value === undefined) return out.write('<nil>');
  if (value instanceof GoInt) return out.write(value.value.toString());
  if (value instanceof GoByte) return out.write(String(value.value));
  if (Array.isArray(value)) {
    out.write('[');
    value.forEach((item, i) => {
      if (i > 0) out.write(' ');
      writeGoValue(item, out);
    });
    return out.write(']');
  }
  if (isJsonMap(value)) {
    out.write('map[');
    sortedMapKeys(value).forEach((key, i) => {
      out.write(i > 0 ? ` ${wellFormed(key)}:` : `${wellFormed(key)}:`);
      writeGoValue(value[key], out);
    });
    return out.write(']');
  }
  if (typeof value === 'number') return out.write(formatGoFloat(value));
  if (typeof value === 'string') return out.write(wellFormed(value));
  return out.write(String(value));
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** unicode.IsPrint / strconv.IsPrint. */
export function isGoPrintable(ch: string): boolean {
  return PRINTABLE.test(ch);
}

/** fmt's %#U: "U+002A '*'" (the character only when printable). */
export function formatGoRune(ch: string): string {
  const hex = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  return isGoPrintable(ch) ? `U+${hex} '${ch}'` : `U+${hex}`;
}

/** strconv.Quote / fmt's %q. */
export function quoteGo(text: string): string {
  let out = '"';
  for (const ch of wellFormed(text)) {
    const code = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') {
      out += `\\${ch}`;
    } else if (isGoPrintable(ch)) {
      out += ch;
    } else {
      const named: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };
      if (named[ch]) out += named[ch];
      else if (code < 0x80) out += `\\x${code.toString(16).padStart(2, '0')}`;
      else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
      else out += `\\U${code.toString(16).padStart(8, '0')}`;
    }
  }
  return `${out}"`;
}
