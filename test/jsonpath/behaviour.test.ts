// Behaviour read from client-go's jsonpath.go (and text/template's funcs) that its own tests do
// not pin down; each name says which piece of the Go code the expectation comes from.

import { describe, expect, it } from 'vitest';
import { compileJsonPath, evaluateJsonPath, executeJsonPath, JsonPathExecError } from '../../src/jsonpath/index.ts';

function run(template: string, data: unknown, allowMissingKeys = false): string {
  return executeJsonPath(template, data, { allowMissingKeys });
}

function failure(template: string, data: unknown): string {
  try {
    const output = run(template, data);
    return `no error, output ${JSON.stringify(output)}`;
  } catch (error) {
    expect(error).toBeInstanceOf(JsonPathExecError);
    return (error as Error).message;
  }
}

const status = {
  replicas: 3,
  updatedReplicas: 3,
  big: 1000000,
  ratio: 0.5,
  tiny: 0.00001,
  updateRevision: 'web-6d9f',
  ready: true,
  nothing: null,
  empty: [],
  nested: { n: 1000000, html: '<a&b>', list: [1, 'two', null] },
  conditions: [
    { type: 'Available', status: 'True', count: 2 },
    { type: 'Progressing', status: 'False', count: 5 },
  ],
};

describe('printing (PrintResults / evalToText)', () => {
  it.each([
    ['strings print raw', '{.updateRevision}', 'web-6d9f'],
    ['a float64 that is integral prints without decimals', '{.replicas}', '3'],
    ['%v switches to exponent form at 1e6', '{.big}', '1e+06'],
    ['%v of 0.5', '{.ratio}', '0.5'],
    ['%v of 0.00001', '{.tiny}', '1e-05'],
    ['booleans', '{.ready}', 'true'],
    ['a JSON null prints null (client-go >= 0.29, kubernetes#119883)', '{.nothing}', 'null'],
    ['an empty slice is JSON', '{.empty}', '[]'],
    [
      'maps are compact JSON with sorted keys, json float rule, HTML escaping',
      '{.nested}',
      '{"html":"\\u003ca\\u0026b\\u003e","list":[1,"two",null],"n":1000000}',
    ],
    ['several results are joined by one space', '{.conditions[*].type}', 'Available Progressing'],
    ['separate actions are concatenated without a space', '{.replicas}{.updatedReplicas}', '33'],
    ['text outside braces is literal', 'rev-{.updateRevision}!', 'rev-web-6d9f!'],
    ['a path without braces is literal text', '.updateRevision', '.updateRevision'],
    ['an empty template prints nothing', '', ''],
    ['quoted literals', '{"a"}{\'b\'}{"\\n"}', 'ab\n'],
    ['integer literal', '{5}', '5'],
    ['float literal prints with %v', '{1.0}{2.5}{1000000.0}', '12.51e+06'],
    ['boolean literal', '{false}', 'false'],
    ['{@} is the whole object', '{@}', JSON.stringify({ a: 1 })],
    ['$ is the root too', '{$.a}', '1'],
    ['a null item inside a slice prints null', '{.nested.list[2]}', 'null'],
    ['a null among several results prints null', '{.nested.list[*]}', '1 two null'],
  ])('%s: %s', (_name, template, expected) => {
    const data = template === '{@}' || template === '{$.a}' ? { a: 1 } : status;
    expect(run(template, data)).toBe(expected);
  });

  it('a nil root is the invalid reflect.Value, printed as <no value> (PrintableValue)', () => {
    expect(run('{@}', null)).toBe('<no value>');
  });

  it('a null range item becomes reflect.ValueOf(nil), printed as <no value>', () => {
    expect(run('{range .a[*]}[{@}]{end}', { a: [1, null, 'x'] })).toBe('[1][<no value>][x]');
  });

  it('range output of each item is concatenated', () => {
    expect(run('{range .conditions[*]}{.type}={.status};{end}', status)).toBe('Available=True;Progressing=False;');
  });

  it('field names may contain "-", "/" and escaped dots', () => {
    const data = { labels: { 'app.kubernetes.io/name': 'web', 'k8s-app': 'dns' } };
    expect(run('{.labels.app\\.kubernetes\\.io/name} {.labels.k8s-app}', data)).toBe('web dns');
  });

  it("['a.b'] splits at the dot (dictKeyRex then parseAction), so it looks up a, then b", () => {
    expect(failure("{.labels['app.kubernetes.io/name']}", { labels: { 'app.kubernetes.io/name': 'web' } })).toBe('app is not found');
  });

  it("['key'] works for keys without dots", () => {
    expect(run("{.labels['k8s-app']}", { labels: { 'k8s-app': 'dns' } })).toBe('dns');
  });

  it('never reaches Object.prototype', () => {
    expect(failure('{.constructor}', {})).toBe('constructor is not found');
    expect(failure('{.toString}', { a: 1 })).toBe('toString is not found');
  });
});

describe('missing keys and wrong types (AllowMissingKeys(false))', () => {
  it.each([
    ['a missing key names the key', '{.phase}', 'phase is not found'],
    ['a missing nested key names the innermost key', '{.nested.missing.deeper}', 'missing is not found'],
    ['a field of a slice is not found (slices have no fields)', '{.conditions.type}', 'type is not found'],
    ['a field of a string is not found', '{.updateRevision.x}', 'x is not found'],
    ['{.} looks up the empty key', '{.}', ' is not found'],
    ['a field of null is skipped, hence not found', '{.nothing.x}', 'x is not found'],
    ['indexing a map', '{.nested[0]}', 'map[string]interface {} is not array or slice'],
    ['indexing a string', '{.updateRevision[0]}', 'string is not array or slice'],
    ['indexing a number', '{.replicas[0]}', 'float64 is not array or slice'],
    ['index 0 of an empty slice', '{.empty[0]}', 'array index out of bounds: index 0, length 0'],
    ['index -1 of an empty slice', '{.empty[-1]}', 'array index out of bounds: index -1, length 0'],
    ['index past the end', '{.conditions[2]}', 'array index out of bounds: index 2, length 2'],
    ['a slice end past the end is an error, not clamped (reports end-1)', '{.conditions[0:10]}', 'array index out of bounds: index 9, length 2'],
    // Indexes are Go ints (int64): exact past 2^53, and the derived end of [n] wraps at the top.
    ['an index past 2^53', '{.conditions[9007199254740993]}', 'array index out of bounds: index 9007199254740993, length 2'],
    [
      'the largest int64 index (its derived end wraps to the smallest)',
      '{.conditions[9223372036854775807]}',
      'array index out of bounds: index 9223372036854775807, length 2',
    ],
    ['a slice end past 2^53', '{.conditions[0:9007199254740993]}', 'array index out of bounds: index 9007199254740992, length 2'],
    ['a negative index past -2^53', '{.conditions[-9007199254740993]}', 'array index out of bounds: index -9007199254740991, length 2'],
    ['filtering a map', '{.nested[?(@.x)]}', 'map[html:<a&b> list:[1 two <nil>] n:1e+06] is not array or slice and cannot be filtered'],
    ['filtering null', '{.nothing[?(@.x)]}', '<nil> is not array or slice and cannot be filtered'],
    ['a union fails when one branch fails', "{.nested['n','missing']}", 'missing is not found'],
    ['an unknown identifier', '{.replicas}{foo}', 'unrecognized identifier foo'],
    ['end outside range', '{end}', 'not in range, nothing to end'],
  ])('%s: %s', (_name, template, message) => {
    expect(failure(template, status)).toBe(message);
  });

  it('indexing null gives nothing, not an error (evalArray skips nil)', () => {
    expect(run('{.nothing[0]}', status)).toBe('');
  });

  it('[*] of an empty slice gives nothing', () => {
    expect(run('{.empty[*]}', status)).toBe('');
  });

  it('with AllowMissingKeys(true) missing keys print nothing', () => {
    expect(run('a{.phase}b{.nested.missing.x}c', status, true)).toBe('abc');
  });

  it('an empty range still walks its body once with no value, so a missing key fails (TestEmptyRange needs AllowMissingKeys)', () => {
    expect(failure('{range .items[*]}{.name}{end}', { items: [] })).toBe('name is not found');
    expect(run('{range .items[*]}{.name}{end}', { items: [] }, true)).toBe('');
  });

  it('a range without end: the body runs per item, then once more on the root (no end node to jump to)', () => {
    expect(run('{range .items[*]}{.name}{end}|', { items: [{ name: 'a' }], name: 'root' })).toBe('a|');
    expect(run('{range .items[*]}{.name}', { items: [{ name: 'a' }, { name: 'b' }], name: 'r' })).toBe('abr');
  });
});

describe('slices ([a:b:c]) and their client-go quirks', () => {
  const data = { a: [0, 1, 2, 3, 4, 5] };
  it.each([
    ['[1:3]', '{.a[1:3]}', '1 2'],
    ['[:2]', '{.a[:2]}', '0 1'],
    ['[4:]', '{.a[4:]}', '4 5'],
    ['[-2:]', '{.a[-2:]}', '4 5'],
    ['[::2]', '{.a[::2]}', '0 2 4'],
    ['[1::2]', '{.a[1::2]}', '1 3 5'],
    ['[*] and [:] are all items', '{.a[*]} {.a[:]}', '0 1 2 3 4 5 0 1 2 3 4 5'],
    ['[] is index 0 (empty start, derived end 1)', '{.a[]}', '0'],
    ['[-1] is the last item', '{.a[-1]}', '5'],
    ['[6:6] requests zero elements: empty, no bounds error', '{.a[6:6]}', ''],
    ['[3:3] is empty', '{.a[3:3]}', ''],
    ['unions of indexes and keys', '{.a[0,2,-1]}', '0 2 5'],
  ])('%s: %s', (_name, template, expected) => {
    expect(run(template, data)).toBe(expected);
  });

  it('a zero-element request ends the whole step and drops later inputs (evalArray returns early)', () => {
    expect(run('{.a[*][*]}', { a: [[], [1, 2]] })).toBe('');
    expect(run('{.a[*][*]}', { a: [[1, 2], [], [3]] })).toBe('1 2');
  });

  it('a nil item is skipped by indexing', () => {
    expect(run('{.a[*][0]}', { a: [null, [5]] })).toBe('5');
  });
});

describe('wildcards and recursive descent', () => {
  it('.* over a map yields its values (sorted keys here; Go order is random)', () => {
    expect(run('{.m.*}', { m: { b: 2, a: 1, c: 'x' } })).toBe('1 2 x');
  });
  it('.* over a slice yields its items', () => {
    expect(run('{.l.*}', { l: [3, 4] })).toBe('3 4');
  });
  it('.* over a string yields its UTF-8 bytes as uint8 (reflect Index of a string)', () => {
    expect(run('{.s.*}', { s: 'hé' })).toBe('104 195 169');
  });
  it('[*] over a map is an error (evalArray), unlike .*', () => {
    expect(failure('{.m[*]}', { m: { a: 1 } })).toBe('map[string]interface {} is not array or slice');
  });
  it('.. lists every non-empty container depth first (the root first), strings included', () => {
    expect(run('{..}', { s: 'ab', l: [1, { k: 'v' }], e: {} })).toBe('{"e":{},"l":[1,{"k":"v"}],"s":"ab"} [1,{"k":"v"}] {"k":"v"} v ab');
  });
  it('..field finds the key at any depth', () => {
    const data = { a: { updateRevision: 'r1', deeper: { updateRevision: 'r2' } }, updateRevision: 'r0' };
    // The root comes first in the recursive list, so its own key is found first.
    expect(run('{..updateRevision}', data)).toBe('r0 r1 r2');
  });
  it('..field with no match is an error naming the key', () => {
    expect(failure('{..nope}', { a: { b: 1 } })).toBe('nope is not found');
  });
});

describe('filters (text/template comparison rules)', () => {
  const data = {
    items: [
      { name: 'a', n: 1, ok: true, tags: ['x'] },
      { name: 'b', n: 2, ok: false, tags: ['x', 'y'] },
      { name: 'c', n: 3, ok: true, tags: [] },
    ],
    parameters: [
      { name: 'checkpoint', value: 'ck-0042' },
      { name: 'other', value: 'zz' },
    ],
  };
  it.each([
    ['== on strings', '{.items[?(@.name=="b")].n}', '2'],
    ['single quotes', "{.items[?(@.name=='c')].n}", '3'],
    ['spaces around the operator', '{.items[?( @.name == "a" )].n}', '1'],
    ['!= on strings', '{.items[?(@.name!="b")].name}', 'a c'],
    ['< on strings compares bytes', '{.items[?(@.name<"b")].name}', 'a'],
    ['>= on strings', '{.items[?(@.name>="b")].name}', 'b c'],
    ['> with a float literal', '{.items[?(@.n>1.0)].name}', 'b c'],
    ['<= with a float literal', '{.items[?(@.n<=2.0)].name}', 'a b'],
    ['== on booleans', '{.items[?(@.ok==true)].name}', 'a c'],
    ['!= on booleans', '{.items[?(@.ok!=true)].name}', 'b'],
    ['comparing two fields of the item', '{.items[?(@.name==@.name)].name}', 'a b c'],
    ['existence filter', '{.items[?(@.tags)].name}', 'a b c'],
    ['existence of a key', '{.parameters[?(@.value)].name}', 'checkpoint other'],
    ['Workflow checkpoint rule from kinds.md §7.5', '{.parameters[?(@.name=="checkpoint")].value}', 'ck-0042'],
    ['no match prints nothing', '{.items[?(@.name=="zz")].n}', ''],
    ['a relative path without @ works too', '{.items[?(.name=="a")].n}', '1'],
  ])('%s: %s', (_name, template, expected) => {
    expect(run(template, data)).toBe(expected);
  });

  it('an existence filter keeps items whose test failed with evalArray errors (the error returns the input)', () => {
    // @.tags[1] is out of bounds for items a and c, yet they are kept.
    expect(run('{.items[?(@.tags[1])].name}', data)).toBe('a b c');
    // A missing key is different: evalField returns no results with its error, so the item is dropped.
    expect(run('{.parameters[?(@.missing)].name}', data)).toBe('');
  });

  it('an existence filter with an unknown identifier keeps every item (evalIdentifier returns its input)', () => {
    expect(run('{.items[?(foo)].name}', data)).toBe('a b c');
  });

  it.each([
    ['an integer literal against a JSON number (float64 vs int)', '{.items[?(@.n>1)].name}', 'incompatible types for comparison'],
    ['a string literal against a number', '{.items[?(@.n=="1")].name}', 'incompatible types for comparison'],
    ['< on booleans', '{.items[?(@.ok<true)].name}', 'invalid type for comparison'],
    ['comparing a slice', '{.items[?(@.tags=="x")].name}', 'invalid type for comparison'],
    ['several values on one side', '{.items[?(@.tags[*]=="x")].name}', 'can only compare one element at a time'],
    ['a missing key in a comparison filter (AllowMissingKeys false)', '{.parameters[?(@.missing=="x")].name}', 'missing is not found'],
    ['null is not a literal: it is an unknown identifier', '{.items[?(@.name==null)].name}', 'unrecognized identifier null'],
    ['a single = is not an operator', '{.items[?(@.name="a")].name}', 'unrecognized filter operator ='],
  ])('%s: %s', (_name, template, message) => {
    expect(failure(template, data)).toBe(message);
  });

  it('=~ is not an operator: the filter splits at =, and ~ cannot start the right-hand side (parser.go parseFilter)', () => {
    expect(() => compileJsonPath('{.items[?(@.name=~"a")].name}')).toThrow("unrecognized character in action: U+007E '~'");
    // Without ! < > or =, a filter is an existence test: here of a field named `name~"a"`.
    expect(run('{.items[?(@.name~"a")].name}', data)).toBe('');
  });

  it('comparing a JSON null is an invalid type', () => {
    expect(failure('{.l[?(@.v==1.0)]}', { l: [{ v: null }] })).toBe('invalid type for comparison');
  });

  it('items where the compared key exists only sometimes need AllowMissingKeys to be skipped', () => {
    const partial = { l: [{ v: 'a' }, {}] };
    expect(failure('{.l[?(@.v=="a")].v}', partial)).toBe('v is not found');
    expect(run('{.l[?(@.v=="a")].v}', partial, true)).toBe('a');
  });
});

describe('API', () => {
  it('a compiled template can be executed many times with the same result', () => {
    const compiled = compileJsonPath('{range .l[*]}{@},{end}');
    expect(executeJsonPath(compiled, { l: [1, 2] })).toBe('1,2,');
    expect(executeJsonPath(compiled, { l: [3] })).toBe('3,');
    expect(compiled.template).toBe('{range .l[*]}{@},{end}');
  });

  it('flags results whose order depends on Go map iteration', () => {
    expect(evaluateJsonPath('{.m.*}', { m: { a: 1, b: 2 } }).mapOrderDependent).toBe(true);
    expect(evaluateJsonPath('{..name}', { a: { name: 'x' }, b: { name: 'y' } }).mapOrderDependent).toBe(true);
    expect(evaluateJsonPath('{..name}', { a: { name: 'x' }, b: {} }).mapOrderDependent).toBe(false);
    expect(evaluateJsonPath('{.m.*}', { m: { a: 1 } }).mapOrderDependent).toBe(false);
    expect(evaluateJsonPath('{.l[*]}', { l: [1, 2] }).mapOrderDependent).toBe(false);
  });

  it('flags failures that depend on Go map iteration (which entry fails first, or whether any does)', () => {
    const failing = (template: string, data: unknown) => {
      try {
        evaluateJsonPath(template, data);
      } catch (error) {
        expect(error).toBeInstanceOf(JsonPathExecError);
        return error as JsonPathExecError;
      }
      throw new Error(`${template} did not fail`);
    };
    // Sorted order visits a's string first; Go may visit b's empty list first, which ends the step quietly.
    expect(failing('{.m.*[*]}', { m: { a: 'x', b: [] } })).toMatchObject({ message: 'string is not array or slice', mapOrderDependent: true });
    expect(failing('{.m.*[*]}', { m: { a: 'x' } }).mapOrderDependent).toBe(false);
    expect(failing('{.missing}', { m: { a: 1, b: 2 } }).mapOrderDependent).toBe(false);
  });
});
