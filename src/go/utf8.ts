// Go strings in JavaScript. A Go string is bytes; here it is a byte string (one char per byte, 0-255),
// the form Lua strings take. unicode/utf8's rules apply when bytes are read as runes: an invalid,
// overlong or surrogate sequence is RuneError with width 1. JavaScript strings that stand for Go strings
// decoded from JSON (JSONPath, the Xline hash) go through wellFormed, encodeUtf8 and decodeUtf8.

export const RUNE_ERROR = 0xfffd;
export const MAX_RUNE = 0x10ffff;

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

/** utf8.ValidRune: in range and not a surrogate. */
export function isValidRune(r: number): boolean {
  return r >= 0 && r <= MAX_RUNE && !(r >= 0xd800 && r <= 0xdfff);
}

/** utf8.AppendRune as a byte string: invalid runes are encoded as RuneError. */
export function encodeRune(rune: number): string {
  const r = isValidRune(rune) ? rune : RUNE_ERROR;
  if (r < 0x80) return String.fromCharCode(r);
  if (r < 0x800) return String.fromCharCode(0xc0 | (r >> 6), 0x80 | (r & 0x3f));
  if (r < 0x10000) return String.fromCharCode(0xe0 | (r >> 12), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f));
  return String.fromCharCode(0xf0 | (r >> 18), 0x80 | ((r >> 12) & 0x3f), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f));
}

/** utf8.RuneCountInString of a byte string. */
export function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; n++) i += s.charCodeAt(i) < 0x80 ? 1 : decodeRune(s, i)[1];
  return n;
}

/** The UTF-8 bytes of a JavaScript string as a byte string (a lone surrogate becomes U+FFFD). */
export function encodeUtf8(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** A byte string read as UTF-8 (an invalid sequence becomes U+FFFD). */
export function decodeUtf8(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Go's strings hold no lone surrogates: encoding/json decodes "\ud800" to U+FFFD. */
export function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** Go compares strings by UTF-8 bytes, which is code point order (not UTF-16 unit order). */
export function compareGoStrings(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  if (i < a.length) return 1;
  if (j < b.length) return -1;
  return 0;
}
