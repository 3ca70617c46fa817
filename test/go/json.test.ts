// encoding/json's number and string output (src/go/json.ts), which JSONPath prints and the Xline spec
// hash is computed over (test/jsonpath, test/kinds/xline-spec-hash.test.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goJsonFloat, goJsonString } from '../../src/go/json.ts';

describe('goJsonFloat = encoding/json float64 (exponent only below 1e-6 or from 1e21, "e-07" → "e-7")', () => {
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
    expect(goJsonFloat(value)).toBe(expected);
  });
  it('rejects NaN and infinities as json.Marshal does', () => {
    expect(() => goJsonFloat(NaN)).toThrow('json: unsupported value: NaN');
    expect(() => goJsonFloat(Infinity)).toThrow('json: unsupported value: +Inf');
  });
});

describe('goJsonString = encoding/json string encoder with HTML escaping (Go >= 1.22)', () => {
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
    expect(goJsonString(value)).toBe(expected);
  });
});

describe('goJsonString on any string', () => {
  it('matches Go for quotes, backslashes, control characters and line separators', () => {
    expect(goJsonString('a"b\\c\n\t\u0001\u2028')).toBe('"a\\"b\\\\c\\n\\t\\u0001\\u2028"');
    expect(goJsonString('ünï 文')).toBe('"ünï 文"');
  });

  it('always produces a JSON string literal that decodes to the input (well-formed strings)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(JSON.parse(goJsonString(text))).toBe(text);
      }),
    );
  });

  it('never leaves <, > or & unescaped, nor a lone surrogate', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const out = goJsonString(text);
        expect(out).not.toMatch(/[<>&]/);
        expect(out.isWellFormed()).toBe(true);
      }),
    );
  });
});
