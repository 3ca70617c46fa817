// string.format as gopher-lua implements it: Go's fmt.Sprintf applied to Lua values (gopher-lua's
// LNumber/LString implement fmt.Formatter). No library does Go fmt semantics over Lua values, so
// this is hand-written; it covers the verbs, flags, width and precision Go supports for these types.
import { goFloatV, goInt64, isGoInteger, luaNumberToString } from './numbers.ts';

export type FormatArg =
  | { type: 'number'; value: number }
  | { type: 'string'; value: string }
  | { type: 'boolean'; value: boolean }
  | { type: 'nil' }
  | { type: 'other'; goType: string; text: string };

interface Spec { minus: boolean; plus: boolean; sharp: boolean; space: boolean; zero: boolean; width?: number; prec?: number }

function pad(s: string, spec: Spec, allowZero = true): string {
  if (spec.width === undefined || s.length >= spec.width) return s;
  const fill = spec.width - s.length;
  if (spec.minus) return s + ' '.repeat(fill);
  if (spec.zero && allowZero) {
    const signLen = /^[+\- ]/.test(s) ? 1 : 0;
    return s.slice(0, signLen) + '0'.repeat(fill) + s.slice(signLen);
  }
  return ' '.repeat(fill) + s;
}

function withSign(body: string, negative: boolean, spec: Spec): string {
  if (negative) return '-' + body;
  if (spec.plus) return '+' + body;
  if (spec.space) return ' ' + body;
  return body;
}

function formatInteger(v: bigint, verb: string, spec: Spec): string {
  const negative = v < 0n;
  const abs = negative ? -v : v;
  let body: string;
  switch (verb) {
    case 'b': body = abs.toString(2); break;
    case 'o': body = abs.toString(8); if (spec.sharp && body !== '0') body = '0' + body; break;
    case 'x': body = abs.toString(16); if (spec.sharp) body = '0x' + body; break;
    case 'X': body = abs.toString(16).toUpperCase(); if (spec.sharp) body = '0X' + body; break;
    case 'c': return pad(String.fromCodePoint(Number(BigInt.asUintN(21, v)) || 0xfffd), spec, false);
    case 'U': return pad('U+' + abs.toString(16).toUpperCase().padStart(4, '0'), spec, false);
    default: body = abs.toString(10);
  }
  if (spec.prec !== undefined) {
    body = body.padStart(spec.prec, '0');
    if (spec.prec === 0 && v === 0n) body = '';
    return pad(withSign(body, negative, spec), spec, false);
  }
  return pad(withSign(body, negative, spec), spec);
}

function expForm(x: number, digitsAfterPoint: number | undefined, upper: boolean): string {
  let s = digitsAfterPoint === undefined ? x.toExponential() : x.toExponential(digitsAfterPoint);
  s = s.replace(/e([+-])(\d)$/, 'e$10$2');
  return upper ? s.toUpperCase() : s;
}

function formatFloat(x: number, verb: string, spec: Spec): string {
  const negative = x < 0 || Object.is(x, -0);
  const abs = Math.abs(x);
  if (!Number.isFinite(x)) {
    // Go prints infinities with an explicit sign ("+Inf", "-Inf") and NaN bare, whatever the verb.
    const text = Number.isNaN(x) ? (spec.plus ? '+NaN' : spec.space ? ' NaN' : 'NaN') : negative ? '-Inf' : spec.space && !spec.plus ? ' Inf' : '+Inf';
    return pad(text, spec, false);
  }
  let body: string;
  switch (verb) {
    case 'e': case 'E': body = expForm(abs, spec.prec ?? 6, verb === 'E'); break;
    case 'f': case 'F': body = abs.toFixed(spec.prec ?? 6); break;
    default: { // g, G, v
      if (spec.prec === undefined) body = goFloatV(abs);
      else {
        const p = spec.prec === 0 ? 1 : spec.prec;
        const exp = abs === 0 ? 0 : Math.floor(Math.log10(Number(abs.toExponential(p - 1))));
        body = exp < -4 || exp >= p ? expForm(abs, p - 1, false) : abs.toFixed(Math.max(0, p - 1 - exp));
        if (!spec.sharp) body = body.replace(/\.?0+(e|$)/, '$1').replace(/^(\d+)\.(?=e|$)/, '$1');
      }
      if (verb === 'G') body = body.toUpperCase();
    }
  }
  return pad(withSign(body, negative, spec), spec); // "-0" keeps its sign, as in Go
}

function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\\u00([0-9a-f]{2})/g, '\\x$1');
}

function formatString(s: string, verb: string, spec: Spec): string {
  const runes = Array.from(s);
  const truncated = spec.prec !== undefined ? runes.slice(0, spec.prec).join('') : s;
  switch (verb) {
    case 's': case 'v': return pad(truncated, spec, false);
    case 'q': return pad(goQuote(truncated), spec, false);
    case 'x': case 'X': {
      const hex = Array.from(new TextEncoder().encode(truncated), (b) => b.toString(16).padStart(2, '0')).join('');
      return pad(verb === 'X' ? hex.toUpperCase() : hex, spec, false);
    }
    default: return `%!${verb}(string=${s})`;
  }
}

function formatArg(arg: FormatArg, verb: string, spec: Spec): string {
  switch (arg.type) {
    case 'number': {
      const n = arg.value;
      if (verb === 's' || verb === 'q') return formatString(luaNumberToString(n), verb, spec);
      if ('bcdoxXU'.includes(verb)) return formatInteger(goInt64(n), verb, spec);
      if (verb === 'i') return formatInteger(goInt64(n), 'd', spec);
      if ('eEfFgG'.includes(verb)) return formatFloat(n, verb, spec);
      if (isGoInteger(n)) return verb === 'v' ? formatInteger(goInt64(n), 'd', spec) : `%!${verb}(int64=${goInt64(n)})`;
      return verb === 'v' ? formatFloat(n, 'v', spec) : `%!${verb}(float64=${goFloatV(n)})`;
    }
    case 'string':
      if (verb === 'd' || verb === 'i') {
        // gopher-lua inverts the parse check here: a numeric string prints as a string and a
        // non-numeric one as the number 0. Reproduced as is.
        const trimmed = arg.value.trim();
        const numeric = trimmed !== '' && !Number.isNaN(Number(trimmed));
        return numeric ? formatString(arg.value, 's', spec) : formatInteger(0n, 'd', spec);
      }
      return formatString(arg.value, verb, spec);
    case 'boolean':
      if (verb === 's' || verb === 'v' || verb === 't') return pad(String(arg.value), spec, false);
      return `%!${verb}(lua.LBool=${arg.value})`;
    case 'nil':
      if (verb === 's' || verb === 'v') return pad('nil', spec, false);
      return `%!${verb}(*lua.LNilType=&{})`;
    default:
      if (verb === 's' || verb === 'v') return pad(arg.text, spec, false);
      return `%!${verb}(${arg.goType})`;
  }
}

/** fmt.Sprintf(format, args...) with gopher-lua's argument trimming (extra arguments are dropped). */
export function goSprintf(format: string, args: FormatArg[]): string {
  let out = '';
  let argIndex = 0;
  let i = 0;
  while (i < format.length) {
    const ch = format[i];
    if (ch !== '%') { out += ch; i++; continue; }
    i++;
    if (format[i] === '%') { out += '%'; i++; continue; }
    const spec: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false };
    for (; i < format.length; i++) {
      const f = format[i];
      if (f === '-') spec.minus = true;
      else if (f === '+') spec.plus = true;
      else if (f === '#') spec.sharp = true;
      else if (f === ' ') spec.space = true;
      else if (f === '0') spec.zero = !spec.minus;
      else break;
    }
    let digits = '';
    while (i < format.length && /[0-9]/.test(format[i])) digits += format[i++];
    if (digits) spec.width = Number(digits);
    if (format[i] === '.') {
      i++;
      let p = '';
      while (i < format.length && /[0-9]/.test(format[i])) p += format[i++];
      spec.prec = p ? Number(p) : 0;
    }
    if (i >= format.length) { out += '%!(NOVERB)'; break; }
    const verb = format[i++];
    if (argIndex >= args.length) { out += `%!${verb}(MISSING)`; continue; }
    out += formatArg(args[argIndex++], verb, spec);
  }
  return out;
}
