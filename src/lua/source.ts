// Lua 5.1 (and gopher-lua) source compatibility applied before fengari's Lua 5.3 parser sees a script.
// Only string escapes differ in ways Karmada scripts can hit: gopher-lua keeps the character of an
// unknown escape ("\." is "."; also "\x", "\z", "\u", which are 5.1-unknown), where Lua 5.3 rejects
// the script ("invalid escape sequence") or decodes it differently. No library tokenizes Lua for
// this, so a small scanner rewrites only those escapes inside short strings, keeping every newline
// (so line numbers in errors stay right).

const GOPHER_ESCAPES = new Set(['a', 'b', 'f', 'n', 'r', 't', 'v', '\\', '"', "'", '\n', '\r', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);

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

export function toLua53Source(source: string): string {
  if (!source.includes('\\')) return source;
  let out = '';
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (ch === '-' && source[i + 1] === '-') {
      const open = longBracketAt(source, i + 2);
      const end = open ? skipLongBracket(source, i + 2, open) : source.indexOf('\n', i) + 1 || source.length;
      out += source.slice(i, end);
      i = end;
    } else if (ch === '[' && longBracketAt(source, i)) {
      const end = skipLongBracket(source, i, longBracketAt(source, i));
      out += source.slice(i, end);
      i = end;
    } else if (ch === '"' || ch === "'") {
      out += ch;
      i++;
      while (i < source.length && source[i] !== ch && source[i] !== '\n') {
        if (source[i] === '\\' && i + 1 < source.length) {
          const next = source[i + 1];
          out += GOPHER_ESCAPES.has(next) ? `\\${next}` : next;
          i += 2;
        } else {
          out += source[i++];
        }
      }
      if (i < source.length) out += source[i++];
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}
