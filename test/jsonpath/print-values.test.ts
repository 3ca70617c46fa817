// How JSONPath prints the Go values it finds: json.Marshal for maps and slices, fmt's %v otherwise.
import { describe, expect, it } from 'vitest';
import { marshalGoJson, sprintGoValue } from '../../src/jsonpath/print-values.ts';
import { GoByte, GoInt, INVALID } from '../../src/jsonpath/values.ts';

describe('marshalGoJson = json.Marshal of interface{} values', () => {
  it('sorts map keys by bytes and is compact', () => {
    expect(marshalGoJson({ b: 1, a: [true, null, 'x'], C: {}, ä: [] })).toBe('{"C":{},"a":[true,null,"x"],"b":1,"ä":[]}');
  });
  it('sorts keys by code point, not UTF-16 unit (U+FF61 before U+1F600)', () => {
    expect(marshalGoJson({ '😀': 1, '｡': 2 })).toBe('{"｡":2,"😀":1}');
  });
  it('uses the JSON float rule inside maps, unlike %v', () => {
    expect(marshalGoJson({ n: 1000000, small: 1e-7 })).toBe('{"n":1000000,"small":1e-7}');
  });
  it('escapes HTML characters in keys too', () => {
    expect(marshalGoJson({ '<k>': '&' })).toBe('{"\\u003ck\\u003e":"\\u0026"}');
  });
  it('skips undefined members (they never reach Karmada)', () => {
    expect(marshalGoJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });
});

describe('sprintGoValue = fmt %v (used in client-go error messages)', () => {
  it.each([
    ['nil', null, '<nil>'],
    ['the invalid Value', INVALID, '<invalid reflect.Value>'],
    ['a string', 'text', 'text'],
    ['a float', 1000000, '1e+06'],
    ['a bool', true, 'true'],
    ['a Go int', new GoInt(42n), '42'],
    ['a uint8', new GoByte(97), '97'],
    ['a slice', [1, 'a', null], '[1 a <nil>]'],
    ['a map (sorted keys)', { name: 'x', n: 2, list: [1, 2] }, 'map[list:[1 2] n:2 name:x]'],
  ] as Array<[string, unknown, string]>)('%s prints as %s', (_label, value, expected) => {
    expect(sprintGoValue(value)).toBe(expected);
  });
});
