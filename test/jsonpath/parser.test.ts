import { describe, expect, it } from 'vitest';
import { compileJsonPath, JsonPathParseError } from '../../src/jsonpath/index.ts';
import type { JsonPathNode, ListNode } from '../../src/jsonpath/nodes.ts';
import { unquoteExtend } from '../../src/jsonpath/parser.ts';

const list = (...nodes: JsonPathNode[]): ListNode => ({ type: 'list', nodes });
const text = (value: string): JsonPathNode => ({ type: 'text', text: value });
const field = (name: string): JsonPathNode => ({ type: 'field', name });
const param = (value: number, known: boolean, derived = false) => ({ value: BigInt(value), known, derived });
const array = (a: ReturnType<typeof param>, b: ReturnType<typeof param>, c: ReturnType<typeof param>): JsonPathNode => ({
  type: 'array',
  params: [a, b, c],
});
const filter = (left: ListNode, operator: string, right: ListNode): JsonPathNode => ({ type: 'filter', left, right, operator });
const osImageFilter = (value: string) => list(filter(list(field('status'), field('nodeInfo'), field('osImage')), '==', list(text(value))));

describe('parser: client-go parser_test.go parserTests', () => {
  const cases: Array<[string, string, JsonPathNode[]]> = [
    ['plain', 'hello jsonpath', [text('hello jsonpath')]],
    ['variable', 'hello {.jsonpath}', [text('hello '), list(field('jsonpath'))]],
    ['arrayfiled', "hello {['jsonpath']}", [text('hello '), list(field('jsonpath'))]],
    ['quote', '{"{"}', [list(text('{'))]],
    ['array', '{[1:3]}', [list(array(param(1, true), param(3, true), param(0, false)))]],
    ['allarray', '{.book[*].author}', [list(field('book'), array(param(0, false), param(0, false), param(0, false)), field('author'))]],
    ['wildcard', '{.bicycle.*}', [list(field('bicycle'), { type: 'wildcard' })]],
    ['filter', '{  [?( @.price<3 )]  }', [list(filter(list(field('price')), '<', list({ type: 'int', value: 3n })))]],
    ['recursive', '{..}', [list({ type: 'recursive' })]],
    ['recurField', '{..price}', [list({ type: 'recursive' }, field('price'))]],
    ['arraydict', "{['book.price']}", [list(field('book'), field('price'))]],
    [
      'union',
      "{['bicycle.price', 3, 'book.price']}",
      [
        list({
          type: 'union',
          branches: [
            list(field('bicycle'), field('price')),
            list(array(param(3, true), param(4, true, true), param(0, false))),
            list(field('book'), field('price')),
          ],
        }),
      ],
    ],
    [
      'range',
      '{range .items}{.name},{end}',
      [list({ type: 'identifier', name: 'range' }, field('items')), list(field('name')), text(','), list({ type: 'identifier', name: 'end' })],
    ],
    ['paired parentheses in quotes', '{[?(@.status.nodeInfo.osImage == "()")]}', [osImageFilter('()')]],
    ['paired parentheses in double quotes and with double quotes escape', '{[?(@.status.nodeInfo.osImage == "(\\"\\")")]}', [osImageFilter('("")')]],
    ['unregular parentheses in double quotes', ' { [?(  @.test == "())("   )] }', [text(' '), list(filter(list(field('test')), '==', list(text('())('))))]],
    ['plain text in single quotes', "{[?(@.status.nodeInfo.osImage == 'Linux')]}", [osImageFilter('Linux')]],
    ['test filter suffix', '{[?(@.status.nodeInfo.osImage == "{[()]}")]}', [osImageFilter('{[()]}')]],
    ['double inside single', `{[?(@.status.nodeInfo.osImage == "''")]}`, [osImageFilter("''")]],
    ['single inside double', `{[?(@.status.nodeInfo.osImage == '""')]}`, [osImageFilter('""')]],
    ['single containing escaped single', "{[?(@.status.nodeInfo.osImage == '\\\\\\'')]}", [osImageFilter("\\'")]],
    ['negative index slice, a[len-5] to a[len-1]', '{[-5:]}', [list(array(param(-5, true), param(0, false), param(0, false)))]],
    ['negative index slice, a[len-1]', '{[-1]}', [list(array(param(-1, true), param(0, true, true), param(0, false)))]],
    ['negative index slice, a[1] to a[len-1]', '{[1:-1]}', [list(array(param(1, true), param(-1, true), param(0, false)))]],
  ];
  it.each(cases)('%s: %s', (_name, template, nodes) => {
    expect(compileJsonPath(template).root.nodes).toEqual(nodes);
  });
});

describe('parser: more shapes, read from parser.go', () => {
  it.each([
    [
      'escaped dots stay in the field name (parseField drops the backslashes)',
      '{.metadata.labels.kubernetes\\.io/hostname}',
      [list(field('metadata'), field('labels'), field('kubernetes.io/hostname'))],
    ],
    [
      "['a.b'] is re-parsed as .a.b (dictKeyRex + parseAction), so dots split the key",
      "{['kubernetes.io/hostname']}",
      [list(field('kubernetes'), field('io/hostname'))],
    ],
    ['a field runs until a terminator, so "-" and "/" belong to it', '{.k8s-app/x}', [list(field('k8s-app/x'))]],
    ['$ and @ are skipped', '{$.a}{@.b}', [list(field('a')), list(field('b'))]],
    ['{.} is a field with an empty name', '{.}', [list(field(''))]],
    ['{@} is the current object', '{@}', [list()]],
    ['text outside braces, a closing brace alone is text', 'a}b{.c}d', [text('a}b'), list(field('c')), text('d')]],
    ['[*] is the slice [:]', '{[*]}', [list(array(param(0, false), param(0, false), param(0, false)))]],
    ['[] is index 0 (empty start, derived end 1)', '{[]}', [list(array(param(0, false), param(1, true, true), param(0, false)))]],
    ['[::2] has only a step', '{[::2]}', [list(array(param(0, false), param(0, false), param(2, true)))]],
    [
      'numbers: Atoi first, then ParseFloat',
      '{1}{-2}{+3}{1.5}{2.}',
      [
        list({ type: 'int', value: 1n }),
        list({ type: 'int', value: -2n }),
        list({ type: 'int', value: 3n }),
        list({ type: 'float', value: 1.5 }),
        list({ type: 'float', value: 2 }),
      ],
    ],
    ['an integer beyond int64 becomes a float', '{99999999999999999999}', [list({ type: 'float', value: 1e20 })]],
    ['true and false are booleans', '{true}{false}', [list({ type: 'bool', value: true }), list({ type: 'bool', value: false })]],
    ['a bare filter is an existence test', '{.items[?(@.z)]}', [list(field('items'), filter(list(field('z')), 'exists', list()))]],
    ['the operator is any run of ! < > =', '{[?(@.a<>1)]}', [list(filter(list(field('a')), '<>', list({ type: 'int', value: 1n })))]],
    ['quoted text with escapes', '{"a\\tb\\u00e9"}', [list(text('a\tb\u00e9'))]],
    ['... is recursion then a field', '{...Price}', [list({ type: 'recursive' }, field('Price'))]],
    [
      'union of indexes',
      '{[1,3,4]}',
      [list({ type: 'union', branches: [1, 3, 4].map((n) => list(array(param(n, true), param(n + 1, true, true), param(0, false)))) })],
    ],
  ] as Array<[string, string, JsonPathNode[]]>)('%s: %s', (_name, template, nodes) => {
    expect(compileJsonPath(template).root.nodes).toEqual(nodes);
  });
});

describe('parser errors: client-go messages (TestFailParser and parser.go)', () => {
  const cases: Array<[string, string, string]> = [
    ['unclosed action', '{.hello', 'unclosed action'],
    ['unrecognized character', '{*}', "unrecognized character in action: U+002A '*'"],
    ['invalid number', '{+12.3.0}', 'cannot parse number +12.3.0'],
    ['unterminated array', '{[1}', 'unterminated array'],
    ['unterminated filter', '{[?(.price]}', 'unterminated filter'],
    ['invalid multiple recursive descent', '{........}', 'invalid multiple recursive descent'],
    ['superrecurfields (jsonpath_test.go)', '{............................................................Price}', 'invalid multiple recursive descent'],
    ['malformat input', '{\\\\\\}', "unrecognized character in action: U+005C '\\'"],
    ['a newline inside an action', '{.a\n}', 'unclosed action'],
    ['a tab is not skipped like a space', '{\t.a}', 'unrecognized character in action: U+0009'],
    ['empty action at end of input', 'x{', 'unclosed action'],
    ['unterminated quoted string', '{"abc}', 'unterminated quoted string'],
    ['invalid escape in a quoted string', '{"a\\qb"}', 'unquote string "a\\qb" error invalid syntax'],
    ['invalid array index', '{.a[x]}', 'invalid array index x'],
    ['slice with a lone minus', '{.a[-]}', 'array index - is not a number'],
    ['too many slice parts', '{.a[1:2:3:4]}', 'invalid array index 1:2:3:4'],
    ['filter without closing bracket', '{[?(@.a==1)x}', 'unclosed array expect ]'],
    ["a comma inside ['...'] splits the union", "{['a,b']}", "invalid array index 'a"],
    ['a lone sign is not a number', '{-}', 'cannot parse number -'],
    ['a non-ASCII digit starts a number that Atoi rejects', '{\u0663}', 'cannot parse number \u0663'],
  ];
  it.each(cases)('%s: %j', (_name, template, message) => {
    let caught: unknown;
    try {
      compileJsonPath(template);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(JsonPathParseError);
    expect((caught as Error).message).toBe(message);
  });
});

describe('unquoteExtend (strconv.Unquote that accepts single quotes)', () => {
  it.each([
    ['"abc"', 'abc'],
    ["'abc'", 'abc'],
    ['"a\\"b"', 'a"b'],
    ["'a\\'b'", "a'b"],
    ['"\\x41\\101\\u00e9\\U0001F600"', 'AAé😀'],
    ['"\\a\\b\\f\\n\\r\\t\\v\\\\"', '\x07\b\f\n\r\t\v\\'],
  ])('%s → %j', (quoted, expected) => {
    expect(unquoteExtend(quoted)).toBe(expected);
  });
  it.each([['"a"b"'], ["'\\\"'"], ['"\\400"'], ['"\\ud800"'], ['"\\x4"'], ['"a'], ['"']])('%s is invalid syntax', (quoted) => {
    expect(unquoteExtend(quoted)).toBeUndefined();
  });
});
