// A port of k8s.io/client-go/util/jsonpath/parser.go. Kept close to the Go code on purpose (same
// steps, same messages), because users' templates must parse, or fail, exactly as in Karmada.
// Hand-written: JavaScript JSONPath libraries implement other dialects (RFC 9535, Goessner) whose
// syntax and results differ from client-go's template language.

import { goSprintfText } from '../go/fmt.ts';
import { goParseFloat, goParseInt } from '../go/strconv.ts';
import { JsonPathParseError } from './errors.ts';
import { newList, type ListNode, type SliceParam } from './nodes.ts';

const EOF = '';
const DICT_KEY = /^'([^']*)'$/;
const SLICE_OPERATOR = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
// Go's `.` matches anything but "\n"; JavaScript's also stops at "\r", U+2028 and U+2029.
// parser.go parseFilter's regexp: the operator is a run of ! < > = only (`=~` is not an operator: its
// `~` starts the right-hand side, which then fails to parse, as in client-go).
const FILTER_COMPARISON = /^([^!<>=]+)([!<>=]+)([^\n]+?)$/;

/** Parses a whole template into its root list (client-go's Parser.Root). */
export function parseTemplate(text: string): ListNode {
  return new Parser(text).parse();
}

/** client-go's parseAction: parse "{text}" and return the action's list. */
function parseAction(text: string): ListNode {
  const root = parseTemplate(`{${text}}`);
  return root.nodes[0] as ListNode;
}

class Parser {
  private readonly root = newList();
  private pos = 0;
  private start = 0;
  private width = 0;

  private readonly input: string;

  constructor(input: string) {
    this.input = input;
  }

  parse(): ListNode {
    // Go's parser is a chain of tail calls (parseText → parseLeftDelim → parseInsideAction → … →
    // parseRightDelim → parseText); here one loop alternates between text and action mode.
    let action: ListNode | undefined;
    for (;;) {
      if (!action) {
        if (!this.scanText()) return this.root;
        this.pos += 1;
        this.consumeText();
        action = newList();
        this.root.nodes.push(action);
      } else if (this.insideAction(action)) {
        action = undefined;
      }
    }
  }

  /** parseText: collects text up to "{" (true) or the end of input (false). */
  private scanText(): boolean {
    for (;;) {
      if (this.input.startsWith('{', this.pos)) {
        if (this.pos > this.start) this.root.nodes.push({ type: 'text', text: this.consumeText() });
        return true;
      }
      if (this.next() === EOF) break;
    }
    if (this.pos > this.start) this.root.nodes.push({ type: 'text', text: this.consumeText() });
    return false;
  }

  /** One step of parseInsideAction; true when the closing "}" was consumed. */
  private insideAction(cur: ListNode): boolean {
    if (this.input.startsWith('}', this.pos)) {
      this.pos += 1;
      this.consumeText();
      return true;
    }
    if (this.input.startsWith('[?(', this.pos)) {
      this.parseFilter(cur);
      return false;
    }
    if (this.input.startsWith('..', this.pos)) {
      this.parseRecursive(cur);
      return false;
    }
    const r = this.next();
    if (r === EOF || isEndOfLine(r)) throw new JsonPathParseError('unclosed action');
    if (r === ' ' || r === '@' || r === '$') {
      this.consumeText();
    } else if (r === '[') {
      this.parseArray(cur);
    } else if (r === '"' || r === "'") {
      this.parseQuote(cur, r);
    } else if (r === '.') {
      this.parseField(cur);
    } else if (r === '+' || r === '-' || isDigit(r)) {
      this.backup();
      this.parseNumber(cur);
    } else if (isAlphaNumeric(r)) {
      this.backup();
      this.parseIdentifier(cur);
    } else {
      throw new JsonPathParseError(goSprintfText('unrecognized character in action: %#U', BigInt(r.codePointAt(0)!)));
    }
    return false;
  }

  private consumeText(): string {
    const value = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return value;
  }

  /** The next code point, or EOF. */
  private next(): string {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const ch = String.fromCodePoint(this.input.codePointAt(this.pos)!);
    this.width = ch.length;
    this.pos += this.width;
    return ch;
  }

  private peek(): string {
    const r = this.next();
    this.backup();
    return r;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  /** The character before the one just read (Go: p.input[p.pos-2]). */
  private precededByBackslash(): boolean {
    return this.input[this.pos - 2] === '\\';
  }

  private parseIdentifier(cur: ListNode): void {
    for (;;) {
      const r = this.next();
      if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    if (value === 'true' || value === 'false') cur.nodes.push({ type: 'bool', value: value === 'true' });
    else cur.nodes.push({ type: 'identifier', name: value });
  }

  private parseRecursive(cur: ListNode): void {
    const last = cur.nodes[cur.nodes.length - 1];
    if (last && last.type === 'recursive') throw new JsonPathParseError('invalid multiple recursive descent');
    this.pos += 2;
    this.consumeText();
    cur.nodes.push({ type: 'recursive' });
    if (isAlphaNumeric(this.peek())) this.parseField(cur);
  }

  private parseNumber(cur: ListNode): void {
    const sign = this.peek();
    if (sign === '+' || sign === '-') this.next();
    for (;;) {
      const r = this.next();
      if (r !== '.' && !isDigit(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    const asInt = goParseInt(value, 10); // strconv.Atoi
    if (asInt !== undefined) {
      cur.nodes.push({ type: 'int', value: asInt });
      return;
    }
    const asFloat = goParseFloat(value);
    if (asFloat !== undefined) {
      cur.nodes.push({ type: 'float', value: asFloat });
      return;
    }
    throw new JsonPathParseError(`cannot parse number ${value}`);
  }

  private parseArray(cur: ListNode): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JsonPathParseError('unterminated array');
      if (r === ']') break;
    }
    let text = this.consumeText();
    text = text.slice(1, -1);
    if (text === '*') text = ':';

    const parts = text.split(',');
    if (parts.length > 1) {
      const branches = parts.map((part) => parseAction(`[${trimSpaces(part)}]`));
      cur.nodes.push({ type: 'union', branches });
      return;
    }

    const dictKey = DICT_KEY.exec(text);
    if (dictKey) {
      cur.nodes.push(...parseAction(`.${dictKey[1]}`).nodes);
      return;
    }

    const slice = SLICE_OPERATOR.exec(text);
    if (!slice) throw new JsonPathParseError(`invalid array index ${text}`);
    const groups = [slice[1] ?? '', slice[2] ?? '', slice[3] ?? ''];
    const params: SliceParam[] = [];
    for (let i = 0; i < 3; i++) {
      let group = groups[i]!;
      if (group !== '') {
        if (i > 0) group = group.slice(1);
        if (i > 0 && group === '') {
          params.push({ known: false, value: 0n, derived: false });
        } else {
          const index = goParseInt(group, 10); // strconv.Atoi
          if (index === undefined) throw new JsonPathParseError(`array index ${group} is not a number`);
          params.push({ known: true, value: index, derived: false });
        }
      } else if (i === 1) {
        params.push({ known: true, value: BigInt.asIntN(64, params[0]!.value + 1n), derived: true });
      } else {
        params.push({ known: false, value: 0n, derived: false });
      }
    }
    cur.nodes.push({ type: 'array', params: [params[0]!, params[1]!, params[2]!] });
  }

  private parseFilter(cur: ListNode): void {
    this.pos += 3;
    this.consumeText();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JsonPathParseError('unterminated filter');
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (!this.precededByBackslash() && r === pair) end = true;
      } else if (r === ')') {
        // Quotes appear at most once on the right-hand side and must be paired.
        if (begin === end) break;
      }
    }
    if (this.next() !== ']') throw new JsonPathParseError('unclosed array expect ]');
    const text = this.consumeText().slice(0, -2);
    const comparison = FILTER_COMPARISON.exec(text);
    if (!comparison) {
      cur.nodes.push({ type: 'filter', left: parseAction(text), right: newList(), operator: 'exists' });
      return;
    }
    const left = parseAction(comparison[1]!);
    const right = parseAction(comparison[3]!);
    cur.nodes.push({ type: 'filter', left, right, operator: comparison[2]! });
  }

  private parseQuote(cur: ListNode, quote: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JsonPathParseError('unterminated quoted string');
      if (r === quote && !this.precededByBackslash()) break;
    }
    const value = this.consumeText();
    const text = unquoteExtend(value);
    if (text === undefined) throw new JsonPathParseError(`unquote string ${value} error invalid syntax`);
    cur.nodes.push({ type: 'text', text });
  }

  private parseField(cur: ListNode): void {
    this.consumeText();
    while (this.advance());
    const value = this.consumeText();
    if (value === '*') cur.nodes.push({ type: 'wildcard' });
    else cur.nodes.push({ type: 'field', name: value.replaceAll('\\', '') });
  }

  /** Scans to the next terminator that is not escaped with a backslash. */
  private advance(): boolean {
    const r = this.next();
    if (r === '\\') {
      this.next();
    } else if (isTerminator(r)) {
      this.backup();
      return false;
    }
    return true;
  }
}

function isTerminator(r: string): boolean {
  return (
    r === ' ' ||
    r === '\t' ||
    isEndOfLine(r) ||
    r === EOF ||
    r === '.' ||
    r === ',' ||
    r === '[' ||
    r === ']' ||
    r === '$' ||
    r === '@' ||
    r === '{' ||
    r === '}'
  );
}

function isEndOfLine(r: string): boolean {
  return r === '\r' || r === '\n';
}

/** unicode.IsDigit: any decimal digit, not only ASCII. */
function isDigit(r: string): boolean {
  return /^\p{Nd}$/u.test(r);
}

/** isAlphaNumeric: "_", unicode.IsLetter or unicode.IsDigit. */
function isAlphaNumeric(r: string): boolean {
  return r === '_' || /^[\p{L}\p{Nd}]$/u.test(r);
}

/** strings.Trim(s, " "). */
function trimSpaces(text: string): string {
  return text.replace(/^ +| +$/g, '');
}

/**
 * client-go's UnquoteExtend: strconv.Unquote that also accepts single quotes. Returns undefined on
 * ErrSyntax. Bytes from \x and octal escapes are decoded as UTF-8 (Go would keep invalid bytes).
 */
export function unquoteExtend(quoted: string): string | undefined {
  if (quoted.length < 2) return undefined;
  const quote = quoted[0]!;
  if (quote !== quoted[quoted.length - 1] || (quote !== '"' && quote !== "'")) return undefined;
  const body = quoted.slice(1, -1);
  if (!body.includes('\\') && !body.includes(quote)) return body;

  const bytes: number[] = [];
  const encoder = new TextEncoder();
  const pushText = (text: string) => bytes.push(...encoder.encode(text));
  let i = 0;
  while (i < body.length) {
    const ch = String.fromCodePoint(body.codePointAt(i)!);
    if (ch === quote) return undefined;
    if (ch !== '\\') {
      pushText(ch);
      i += ch.length;
      continue;
    }
    const escape = body[i + 1];
    if (escape === undefined) return undefined;
    i += 2;
    const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };
    if (simple[escape] !== undefined) {
      pushText(simple[escape]);
    } else if (escape === "'" || escape === '"') {
      if (escape !== quote) return undefined;
      pushText(escape);
    } else if (escape === 'x' || escape === 'u' || escape === 'U') {
      const size = escape === 'x' ? 2 : escape === 'u' ? 4 : 8;
      const hex = body.slice(i, i + size);
      if (hex.length !== size || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
      i += size;
      const value = parseInt(hex, 16);
      if (escape === 'x') {
        bytes.push(value);
      } else {
        if (value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return undefined;
        pushText(String.fromCodePoint(value));
      }
    } else if (escape >= '0' && escape <= '7') {
      const octal = body.slice(i - 1, i + 2);
      if (!/^[0-7]{3}$/.test(octal)) return undefined;
      const value = parseInt(octal, 8);
      if (value > 255) return undefined;
      i += 2;
      bytes.push(value);
    } else {
      return undefined;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
