// Go's strconv as src/go/strconv.ts reproduces it, checked against vectors from Go's own tests
// (src/strconv/ftoa_test.go ftoatests, atof_test.go atoftests, atoi_test.go). Lua's tonumber and
// string.format (test/lua/gopher-lua-exactness.test.ts) and JSONPath's number literals use these.
import { describe, expect, it } from 'vitest';
import { goFormatFloat, goParseFloat, goParseInt, goQuote, type FloatFormat } from '../../src/go/strconv.ts';

const below1e23 = 99999999999999974834176;
const above1e23 = 100000000000000008388608;

describe('goFormatFloat = strconv.FormatFloat(x, fmt, prec, 64)', () => {
  const cases: Array<[number, FloatFormat, number, string]> = [
    [1, 'e', 5, '1.00000e+00'],
    [1, 'f', 5, '1.00000'],
    [1, 'g', 5, '1'],
    [1, 'g', -1, '1'],
    [20, 'g', -1, '20'],
    [1234567.8, 'g', -1, '1.2345678e+06'],
    [200000, 'g', -1, '200000'],
    [2000000, 'g', -1, '2e+06'],
    [400, 'g', 2, '4e+02'],
    [40, 'g', 2, '40'],
    [0.4, 'g', 2, '0.4'],
    [0.0004, 'g', 2, '0.0004'],
    [0.00004, 'g', 2, '4e-05'],
    [0, 'e', 5, '0.00000e+00'],
    [0, 'f', 5, '0.00000'],
    [0, 'g', 5, '0'],
    [-1, 'e', 5, '-1.00000e+00'],
    [-1, 'f', 5, '-1.00000'],
    [12, 'e', 5, '1.20000e+01'],
    [123456700, 'e', 5, '1.23457e+08'],
    [123456700, 'f', 5, '123456700.00000'],
    [123456700, 'g', 5, '1.2346e+08'],
    [123456700, 'g', -1, '1.234567e+08'],
    [1.2345e6, 'g', 5, '1.2345e+06'],
    [1e23, 'e', 17, '9.99999999999999916e+22'],
    [1e23, 'f', 17, '99999999999999991611392.00000000000000000'],
    [1e23, 'g', 17, '9.9999999999999992e+22'],
    [1e23, 'e', -1, '1e+23'],
    [1e23, 'f', -1, '100000000000000000000000'],
    [below1e23, 'e', 17, '9.99999999999999748e+22'],
    [below1e23, 'f', -1, '99999999999999970000000'],
    [below1e23, 'g', -1, '9.999999999999997e+22'],
    [above1e23, 'f', 17, '100000000000000008388608.00000000000000000'],
    [above1e23, 'g', 17, '1.0000000000000001e+23'],
    [above1e23, 'f', -1, '100000000000000010000000'],
    [5e-324, 'g', -1, '5e-324'],
    [-5e-324, 'g', -1, '-5e-324'],
    [32, 'g', -1, '32'],
    [32, 'g', 0, '3e+01'],
    [NaN, 'g', -1, 'NaN'],
    [Infinity, 'g', -1, '+Inf'],
    [-Infinity, 'g', -1, '-Inf'],
    // halves round to even on the exact binary value
    [0.9, 'f', 1, '0.9'],
    [0.09, 'f', 1, '0.1'],
    [0.0999, 'f', 1, '0.1'],
    [0.05, 'f', 1, '0.1'],
    [0.05, 'f', 0, '0'],
    [0.5, 'f', 1, '0.5'],
    [0.5, 'f', 0, '0'],
    [1.5, 'f', 0, '2'],
    // literals as Go's test writes them, read to the nearest float64
    [Number('2.2250738585072012e-308'), 'g', -1, '2.2250738585072014e-308'],
    [Number('2.2250738585072011e-308'), 'g', -1, '2.225073858507201e-308'],
    [383260575764816448, 'f', 0, '383260575764816448'],
    [383260575764816448, 'g', -1, '3.8326057576481645e+17'],
    [498484681984085570, 'f', -1, '498484681984085570'],
    [-5.8339553793802237e23, 'g', -1, '-5.8339553793802237e+23'],
  ];
  it.each(cases)('FormatFloat(%s, %s, %s) = %s', (x, fmt, prec, expected) => {
    expect(goFormatFloat(x, fmt, prec)).toBe(expected);
  });
});

describe('goParseFloat = strconv.ParseFloat(s, 64); undefined where Go returns ErrSyntax or ErrRange', () => {
  const cases: Array<[string, string | undefined]> = [
    ['', undefined],
    ['1', '1'],
    ['+1', '1'],
    ['1x', undefined],
    ['1.1.', undefined],
    ['1e23', '1e+23'],
    ['1E23', '1e+23'],
    ['100000000000000000000000', '1e+23'],
    ['100000000000000016777216', '1.0000000000000003e+23'],
    ['-0', '-0'],
    ['625e-3', '0.625'],
    ['0x1p-1', '0.5'],
    ['-0x1_ep-1', '-15'],
    ['0x1fFe2.P0', '131042'],
    ['0x0.fp4', '15'],
    ['0x1e2', undefined],
    ['1p2', undefined],
    ['-0e+01234567890123456789', '-0'],
    ['0x0p1026', '0'],
    ['nan', 'NaN'],
    ['+INF', '+Inf'],
    ['-Infinity', '-Inf'],
    ['1.7976931348623157e308', '1.7976931348623157e+308'],
    ['0x1.fffffffffffffp1023', '1.7976931348623157e+308'],
    ['1.7976931348623159e308', undefined],
    ['0x1p1024', undefined],
    ['1.7976931348623158e308', '1.7976931348623157e+308'],
    ['0x1.fffffffffffff7fffp1023', '1.7976931348623157e+308'],
    ['0x1.fffffffffffff8p1023', undefined],
    ['1e400000', undefined],
    ['4e-324', '5e-324'],
    ['2e-324', '0'],
    ['1e-400000', '0'],
    ['0x1.fffffffffffff8p-1010', '1.8227805048890994e-304'],
    ['0x0.00000003456788p-1022', '1.694649e-317'],
    ['0x0.00000000000008p-1022', '0'],
    ['0x0.000000000000081p-1022', '5e-324'],
    ['1e-4294967296', '0'],
    ['1e+4294967296', undefined],
    ['0x1p+18446744073709551616', undefined],
    ['1e', undefined],
    ['.e-1', undefined],
    ['0x', undefined],
    ['0x1', undefined],
    ['0x.1p-2', '0.015625'],
    ['1.00000000000000011102230246251565404236316680908203125', '1'],
    ['0x1.00000000000008p0', '1'],
    ['0x1.000000000000081p0', '1.0000000000000002'],
    ['0x1.00000000000018p0', '1.0000000000000004'],
    ['1_23.50_0_0e+1_2', '1.235e+14'],
    ['_123.5e+12', undefined],
    ['123_.5e+12', undefined],
    ['123.5e+1__2', undefined],
    ['0x_1_2.3_4_5p+1_2', '74565'],
    ['0x12.345p+12_', undefined],
  ];
  it.each(cases)('ParseFloat(%j) = %s', (text, expected) => {
    const value = goParseFloat(text);
    expect(value === undefined ? undefined : goFormatFloat(value, 'g', -1)).toBe(expected);
  });
});

describe('goParseInt = strconv.ParseInt(s, base, 64); undefined where Go returns an error', () => {
  const cases: Array<[string, number, bigint | undefined]> = [
    ['', 10, undefined],
    ['0', 10, 0n],
    ['-0', 10, 0n],
    ['+12345', 10, 12345n],
    ['-98765', 10, -98765n],
    ['9223372036854775807', 10, 9223372036854775807n],
    ['9223372036854775808', 10, undefined],
    ['-9223372036854775808', 10, -9223372036854775808n],
    ['-9223372036854775809', 10, undefined],
    ['12345x', 10, undefined],
    ['1_000', 10, undefined],
    ['1_000', 0, 1000n],
    ['_1000', 0, undefined],
    ['1__000', 0, undefined],
    ['0x_1F', 0, 31n],
    ['0b101', 0, 5n],
    ['0o17', 0, 15n],
    ['017', 0, 15n],
    ['0x', 0, undefined],
    ['z', 36, 35n],
    ['Z', 36, 35n],
    // Go's digits are ASCII: the Kelvin sign and a dotted capital I are not "k" and "i".
    ['\u212a', 36, undefined],
    ['\u0130', 36, undefined],
    ['7', 2, undefined],
    ['1', 1, undefined],
    ['1', 37, undefined],
  ];
  it.each(cases)('ParseInt(%j, %s) = %s', (text, base, expected) => {
    expect(goParseInt(text, base)).toBe(expected);
  });
});

describe('goQuote = strconv.Quote / QuoteToASCII of a byte string', () => {
  it('escapes invalid bytes as \\x and keeps valid UTF-8 that is printable', () => {
    expect(goQuote('abc\xffdef', false)).toBe('"abc\\xffdef"');
    expect(goQuote('\xe2\x98\xba', false)).toBe('"\xe2\x98\xba"');
    expect(goQuote('\xe2\x98\xba', true)).toBe('"\\u263a"');
    expect(goQuote('\x07\x7f', false)).toBe('"\\a\\x7f"');
  });
});
