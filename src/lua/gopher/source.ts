// Lua 5.1 (gopher-lua) source made readable by fengari's Lua 5.3 parser, every newline kept (line numbers in
// errors stay right): gopher-lua's string escapes and numerals rewritten, and what gopher-lua refuses to
// compile found, so that a script Karmada would not compile does not compile here either.

import { LuaScriptError } from '../errors.ts';

// No library tokenizes Lua for this, so a small scanner splits a script into code, strings and comments and:
// - rewrites string escapes gopher-lua reads its own way: an unknown escape keeps its character ("\."
//   is "."; also "\x", "\z", "\u", which are 5.1-unknown) and a decimal escape over 255 its low byte
//   ("\300" is ","), where Lua 5.3 rejects the script or decodes it differently;
// - rewrites numerals gopher-lua's lexer (parse/lexer.go scanNumber) cuts its own way: one leading zero
//   is dropped ("010" is 10, "0010" octal 8), and a hexadecimal number ends at its last hex digit
//   ("0x10..'a'" is a concatenation, a malformed number in 5.3);
// - finds what gopher-lua refuses and fengari runs (5.3 operators, hexadecimal floats, binary numerals,
//   a statement after `break`).

const GOPHER_ESCAPES = new Set(['a', 'b', 'f', 'n', 'r', 't', 'v', '\\', '"', "'", '\n', '\r']);

/** Length of a long bracket opener "[==[" at `i` (its level + 2), or 0. */
function longBracketAt(source: string, i: number): number {
  if (source[i] !== '[') return 0;
  let j = i + 1;
  while (source[j] === '=') j++;
  return source[j] === '[' ? j - i + 1 : 0;
}

/** Index just after the long bracket closing the one opened at `i` with `openLength` chars. */
function skipLongBracket(source: string, i: number, openLength: number): number {
  const close = `]${'='.repeat(openLength - 2)}]`;
  const end = source.indexOf(close, i + openLength);
  return end === -1 ? source.length : end + close.length;
}

/** A stretch of a script: code, a short string (quotes included), or a comment or long string. */
interface Segment {
  kind: 'code' | 'string' | 'other';
  start: number;
  end: number;
}

/** Splits a script into code, short strings and the rest, as a Lua lexer would; the segments cover it in order. */
function* segments(source: string): Generator<Segment> {
  let code = 0;
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    let end: number;
    let kind: Segment['kind'] = 'other';
    if (ch === '-' && source[i + 1] === '-') {
      const open = longBracketAt(source, i + 2);
      end = open ? skipLongBracket(source, i + 2, open) : source.indexOf('\n', i) + 1 || source.length;
    } else if (ch === '[' && longBracketAt(source, i)) {
      end = skipLongBracket(source, i, longBracketAt(source, i));
    } else if (ch === '"' || ch === "'") {
      kind = 'string';
      end = i + 1;
      while (end < source.length && source[end] !== ch && source[end] !== '\n') end += source[end] === '\\' ? 2 : 1;
      end = Math.min(end + 1, source.length);
    } else {
      i++;
      continue;
    }
    if (code < i) yield { kind: 'code', start: code, end: i };
    yield { kind, start: i, end };
    code = i = end;
  }
  if (code < source.length) yield { kind: 'code', start: code, end: source.length };
}

/** Where a numeral can start: not inside a name or number, nor after a decimal point (`..` is fine). */
const NUMERAL_START = String.raw`(?<!\w)(?<!(?<!\.)\.)`;
/** A hexadecimal number directly followed by `..`. */
const HEX_BEFORE_CONCAT = new RegExp(String.raw`${NUMERAL_START}(0[xX][0-9A-Fa-f]+)(?=\.\.)`, 'g');
/** The zero gopher-lua drops from a numeral that starts with 0 and a decimal digit (with a later x or b, both refuse it). */
const DROPPED_ZERO = new RegExp(String.raw`${NUMERAL_START}0(?=\d)(?!\d*[xXbB])`, 'g');

function gopherNumerals(code: string): string {
  return code.replace(HEX_BEFORE_CONCAT, '$1 ').replace(DROPPED_ZERO, '');
}

/** An escape in a short string: a decimal one (up to three digits), or a backslash and one character. */
const ESCAPE = /\\(\d{1,3}|[^])/g;

/** The escape as Lua 5.3 reads what gopher-lua's scanEscape makes of it (a decimal one is kept to a byte, as Go's byte() does). */
function gopherEscape(_escape: string, body: string): string {
  if (/^\d/.test(body)) return `\\${String(Number(body) & 255).padStart(3, '0')}`;
  return GOPHER_ESCAPES.has(body) ? `\\${body}` : body;
}

export function toLua53Source(source: string): string {
  if (!source.includes('\\') && gopherNumerals(source) === source) return source;
  let out = '';
  for (const { kind, start, end } of segments(source)) {
    if (kind === 'code') {
      out += gopherNumerals(source.slice(start, end));
      continue;
    }
    out += kind === 'string' ? source.slice(start, end).replace(ESCAPE, gopherEscape) : source.slice(start, end);
  }
  return out;
}

/**
 * What gopher-lua's lexer or parser refuses (Karmada's admission check then rejects the customization)
 * while fengari runs it: integer division and the bitwise operators (`~=` is 5.1's "not equal"),
 * hexadecimal floats (`0x1p4`, `0xA.8`: gopher-lua reads only hex digits after `0x`), binary numerals
 * (`0b101`: gopher-lua reads 0 then a name; fengari's lexer hands it to Go's number parser), and a
 * statement after `break` in its block (gopher-lua's grammar has `break`, like `return`, only as the
 * last statement, as Lua 5.1 does).
 */
const LUA53_OPERATOR = /\/\/|<<|>>|~(?!=)|&|\|/;
const HEX_FLOAT = String.raw`${NUMERAL_START}0[xX][0-9A-Fa-f]*(?:\.(?!\.)[0-9A-Fa-f]*(?:[pP][+-]?\d*)?|[pP][+-]?\d*)`;
const BINARY = String.raw`${NUMERAL_START}0[bB][0-9A-Fa-f]*`;
const BREAK_NOT_LAST = String.raw`\bbreak\b(?!\s*;?\s*(?:(?:end|else|elseif|until)\b|$))`;
const REFUSED_BY_GOPHER_LUA = new RegExp(`${LUA53_OPERATOR.source}|${HEX_FLOAT}|${BINARY}|${BREAK_NOT_LAST}`);

/** The script with its strings and comments blanked out (newlines kept, so offsets and lines stay). */
function codeOnly(source: string): string {
  let out = '';
  for (const { kind, start, end } of segments(source)) {
    const text = source.slice(start, end);
    out += kind === 'code' ? text : text.replace(/[^\n]/g, ' ');
  }
  return out;
}

/** The first construct gopher-lua refuses outside strings and comments, with its line (1-based), or undefined. */
export function refusedByGopherLua(source: string): { text: string; line: number } | undefined {
  const code = codeOnly(source);
  const match = REFUSED_BY_GOPHER_LUA.exec(code);
  return match ? { text: match[0], line: code.slice(0, match.index).split('\n').length } : undefined;
}

function describeRefused(text: string): string {
  if (text === '//') return 'Lua 5.3 integer division (use math.floor(a / b))';
  if (text === 'break') return 'followed by another statement in its block, which Lua 5.1 does not allow';
  if (/^0[xX]/.test(text)) return 'a Lua 5.3 hexadecimal float';
  return /^0[bB]/.test(text) ? 'a binary numeral, which Lua does not have' : 'a Lua 5.3 bitwise operator';
}

/**
 * The compile error Karmada would report first: `fengariError` (from compiling the rewritten script), or
 * a construct on an earlier line that fengari accepts and gopher-lua does not.
 */
export function firstCompileError(source: string, fengariError: LuaScriptError | undefined): LuaScriptError | undefined {
  const found = refusedByGopherLua(source);
  if (!found || (fengariError?.line !== undefined && fengariError.line < found.line)) return fengariError;
  return new LuaScriptError(`'${found.text}' is ${describeRefused(found.text)}: Karmada's Lua (gopher-lua, Lua 5.1) does not compile it`, {
    line: found.line,
  });
}
