import { describe, expect, it } from 'vitest';
import {
  formatGoFloat,
  formatGoRune,
  formatJsonFloat,
  marshalGoJson,
  marshalJsonString,
  quoteGo,
  sprintGoValue,
} from '../../src/jsonpath/print-values.ts';
import { GoByte, GoInt, INVALID } from '../../src/jsonpath/values.ts';

describe('formatGoFloat = fmt %v of a float64 (strconv g, shortest, exponent when exp < -4 || exp >= 6)', () => {
  const cases: Array<[number, string]> = [
    [0, '0'],
    [-0, '-0'],
    [1, '1'],
    [2, '2'],
    [-2, '-2'],
    [1.5, '1.5'],
    [-2.5, '-2.5'],
    [0.1, '0.1'],
    [0.1 + 0.2, '0.30000000000000004'],
    [3.14159, '3.14159'],
    [10, '10'],
    [100000, '100000'],
    [999999, '999999'],
    [123456, '123456'],
    [123456.7, '123456.7'],
    [999999.5, '999999.5'],
    [1000000, '1e+06'],
    [-1000000, '-1e+06'],
    [1234567, '1.234567e+06'],
    [2500000, '2.5e+06'],
    [12345678, '1.2345678e+07'],
    [123456789, '1.23456789e+08'],
    [1e20, '1e+20'],
    [1e21, '1e+21'],
    [1e100, '1e+100'],
    [9007199254740993, '9.007199254740992e+15'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [0.001, '0.001'],
    [0.0001, '0.0001'],
    [0.000123, '0.000123'],
    [0.00001, '1e-05'],
    [0.0000123, '1.23e-05'],
    [1e-7, '1e-07'],
    [-1.5e-10, '-1.5e-10'],
    [1e-100, '1e-100'],
    [5e-324, '5e-324'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
  ];
  it.each(cases)('%s prints as %s', (value, expected) => {
    expect(formatGoFloat(value)).toBe(expected);
  });
});

describe('formatJsonFloat = encoding/json float64 (exponent only below 1e-6 or from 1e21, "e-07" → "e-7")', () => {
  const cases: Array<[number, string]> = [
    [0, '0'],
    [-0, '-0'],
    [2, '2'],
    [1000000, '1000000'],
    [1234567, '1234567'],
    [1e20, '100000000000000000000'],
    [999999999999999900000, '999999999999999900000'],
    [1e21, '1e+21'],
    [1.5e21, '1.5e+21'],
    [1e-6, '0.000001'],
    [1.5e-6, '0.0000015'],
    [9.5e-7, '9.5e-7'],
    [1e-7, '1e-7'],
    [1.23e-18, '1.23e-18'],
    [1e-100, '1e-100'],
    [0.00001, '0.00001'],
    [-3.25, '-3.25'],
  ];
  it.each(cases)('%s marshals as %s', (value, expected) => {
    expect(formatJsonFloat(value)).toBe(expected);
  });
  it('rejects NaN and infinities as json.Marshal does', () => {
    expect(() => formatJsonFloat(NaN)).toThrow('json: unsupported value: NaN');
    expect(() => formatJsonFloat(Infinity)).toThrow('json: unsupported value: +Inf');
  });
});

describe('marshalJsonString = encoding/json string encoder with HTML escaping (Go >= 1.22)', () => {
  const cases: Array<[string, string]> = [
    ['plain', '"plain"'],
    ['a"b', '"a\\"b"'],
    ['a\\b', '"a\\\\b"'],
    ['<tag> & co', '"\\u003ctag\\u003e \\u0026 co"'],
    ['line\nbreak\ttab\rcr', '"line\\nbreak\\ttab\\rcr"'],
    ['\b\f', '"\\b\\f"'],
    ['\u0001\u001f', '"\\u0001\\u001f"'],
    ['\u007f', '"\u007f"'],
    ['é漢字😀', '"é漢字😀"'],
    ['\u2028\u2029', '"\\u2028\\u2029"'],
    ['lone \ud800 surrogate', '"lone \ufffd surrogate"'],
    ["it's /ok", '"it\'s /ok"'],
  ];
  it.each(cases)('%j encodes as %s', (value, expected) => {
    expect(marshalJsonString(value)).toBe(expected);
  });
});

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

describe('Go quoting helpers', () => {
  it.each([
    ['{.a}', '"{.a}"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ['tab\tnl\n', '"tab\\tnl\\n"'],
    ['\u0001', '"\\x01"'],
    ['é', '"é"'],
    ['\u200b', '"\\u200b"'],
  ])('strconv.Quote(%j) = %s', (value, expected) => {
    expect(quoteGo(value)).toBe(expected);
  });
  it.each([
    ['*', "U+002A '*'"],
    ['\\', "U+005C '\\'"],
    ['\t', 'U+0009'],
    ['é', "U+00E9 'é'"],
    ['😀', "U+1F600 '😀'"],
  ])('%%#U of %j = %s', (value, expected) => {
    expect(formatGoRune(value)).toBe(expected);
  });
});
