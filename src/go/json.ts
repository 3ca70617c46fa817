// encoding/json's output for a float64 and a string (encode.go floatEncoder and appendString with
// json.Marshal's HTML escaping), as JSONPath prints values and the Xline spec hash needs them byte for
// byte. JSON.stringify escapes differently (no \u003c, raw U+2028) and prints -0 as 0.
import { goSprintFloat } from './fmt.ts';

/**
 * encoding/json's float64: 'f' format unless abs < 1e-6 or abs >= 1e21, then 'e' with "e-07"
 * shortened to "e-7". That is exactly ECMAScript's Number-to-String, except for negative zero.
 */
export function goJsonFloat(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`json: unsupported value: ${goSprintFloat(value)}`);
  if (Object.is(value, -0)) return '-0';
  return String(value);
}

const HEX = '0123456789abcdef';
const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
/** What needs escaping: controls, '"', '\\', HTML's <, > and &, U+2028/U+2029 and lone surrogates. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON must escape
const NEEDS_ESCAPE = /[\u0000-\u001f"\\<>&\u2028\u2029\ud800-\udfff]/;

/**
 * encoding/json's string literal with HTML escaping on (json.Marshal's default, Go >= 1.22): <, > and &
 * as \u003c \u003e \u0026, U+2028/U+2029 escaped, other controls as \u00XX, \b and \f short. A lone
 * surrogate cannot reach a Go string from JSON (the decoder turns it into U+FFFD), so it encodes as U+FFFD.
 */
export function goJsonString(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return `"${text}"`;
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (code < 0x20 || ch === '<' || ch === '>' || ch === '&') out += `\\u00${HEX[code >> 4]}${HEX[code & 0xf]}`;
    else if (code === 0x2028 || code === 0x2029) out += `\\u202${HEX[code & 0xf]}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\ufffd';
    else out += ch;
  }
  return `${out}"`;
}
