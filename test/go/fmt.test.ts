import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basicValues, goSprintf, goSprintFloat, goSprintfText } from '../../src/go/fmt.ts';

describe('goSprintFloat = fmt %v of a float64 (strconv g, shortest, exponent when exp < -4 || exp >= 6)', () => {
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
    [Number('9007199254740993'), '9.007199254740992e+15'], // 2^53 + 1 reads as 2^53
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
    expect(goSprintFloat(value)).toBe(expected);
  });
});

describe('goSprintfText: %q and %#U of JavaScript strings and runes', () => {
  it.each([
    ['{.a}', '"{.a}"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ['tab\tnl\n', '"tab\\tnl\\n"'],
    ['\u0001', '"\\x01"'],
    ['é', '"é"'],
    ['\u200b', '"\\u200b"'],
  ])('strconv.Quote(%j) = %s', (value, expected) => {
    expect(goSprintfText('%q', value)).toBe(expected);
  });
  it.each([
    ['*', "U+002A '*'"],
    ['\\', "U+005C '\\'"],
    ['\t', 'U+0009'],
    ['é', "U+00E9 'é'"],
    ['😀', "U+1F600 '😀'"],
  ])('%%#U of %j = %s', (value, expected) => {
    expect(goSprintfText('%#U', BigInt(value.codePointAt(0)!))).toBe(expected);
  });
});

describe('goSprintFloat properties', () => {
  const finiteDouble = fc.double({ noNaN: true, noDefaultInfinity: true });

  it('round-trips every finite double', () => {
    fc.assert(
      fc.property(finiteDouble, (value) => {
        expect(Number(goSprintFloat(value))).toBe(value);
      }),
      { numRuns: 5000 },
    );
  });

  it('uses the exponent form exactly when the decimal exponent is < -4 or >= 6', () => {
    fc.assert(
      fc.property(
        finiteDouble.filter((value) => value !== 0),
        (value) => {
          const text = goSprintFloat(value);
          const decimalExponent = Number(Math.abs(value).toExponential().split('e')[1]);
          if (decimalExponent < -4 || decimalExponent >= 6) expect(text).toMatch(/^-?\d(\.\d+)?e[+-]\d{2,3}$/);
          else expect(text).toMatch(/^-?\d+(\.\d+)?$/);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('prints integers below a million without exponent or decimals', () => {
    fc.assert(
      fc.property(fc.integer({ min: -999999, max: 999999 }), (value) => {
        expect(goSprintFloat(value)).toBe(String(value));
      }),
    );
  });

  it('is %v and %g of a float64 through goSprintf', () => {
    fc.assert(
      fc.property(fc.double(), (value) => {
        const text = goSprintFloat(value);
        expect(goSprintf('%v', [value], basicValues)).toBe(text);
        expect(goSprintf('%g', [value], basicValues)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });
});

// Vectors from Go's own fmt tests (src/fmt/fmt_test.go, fmtTests), for the basic types goSprintf
// prints itself: int64 (bigint), float64, string and bool.
describe('goSprintf over basic Go values (fmt_test.go vectors)', () => {
  const cases: Array<[string, bigint | number | string | boolean, string]> = [
    // escaped strings
    ['%q', '', '""'],
    ['%#q', '', '``'],
    ['%q', '"', '"\\""'],
    ['%#q', '"', '`"`'],
    ['%q', '`', '"`"'],
    ['%q', '\n', '"\\n"'],
    ['%#q', '\\n', '`\\n`'],
    ['%q', 'abc', '"abc"'],
    ['%#q', 'abc', '`abc`'],
    ['%q', '日本語', '"日本語"'],
    ['%+q', '日本語', '"\\u65e5\\u672c\\u8a9e"'],
    ['%#+q', '日本語', '`日本語`'],
    ['%q', '\x07\b\f\n\r\t\v"\\', '"\\a\\b\\f\\n\\r\\t\\v\\"\\\\"'],
    ['%+q', '☺', '"\\u263a"'],
    ['% q', '☺', '"☺"'],
    ['%10q', '⌘', '       "⌘"'],
    ['%+10q', '⌘', '  "\\u2318"'],
    ['%-10q', '⌘', '"⌘"       '],
    ['%010q', '⌘', '0000000"⌘"'],
    ['%-010q', '⌘', '"⌘"       '],
    ['%#8q', '\n', '    "\\n"'],
    ['%#-8q', '\t', '`\t`     '],
    ['%q', '\u{10ffff}', '"\\U0010ffff"'],
    ['%#q', '\u{10ffff}', '`\u{10ffff}`'],
    // width and precision count runes
    ['%5s', 'abc', '  abc'],
    ['%2s', '☺', ' ☺'],
    ['%-5s', 'abc', 'abc  '],
    ['%05s', 'abc', '00abc'],
    ['%.5s', 'abcdefghijklmnopqrstuvwxyz', 'abcde'],
    ['%.0s', '日本語日本語', ''],
    ['%.5s', '日本語日本語', '日本語日本'],
    ['%08q', 'abc', '000"abc"'],
    ['%.3q', '日本語日本語', '"日本語"'],
    ['%.5x', 'abcdefghijklmnopqrstuvwxyz', '6162636465'],
    ['%10.1q', '日本語日本語', '       "日"'],
    // characters and escaped characters
    ['%c', 0xe4n, 'ä'],
    ['%3c', 0x2318n, '  ⌘'],
    ['%c', -1n, '\ufffd'],
    ['%c', 0xdc80n, '\ufffd'],
    ['%q', 0n, "'\\x00'"],
    ['%q', 0x27n, "'\\''"],
    ['%+q', 0xffn, "'\\u00ff'"],
    ['%+10q', 0x2318n, "  '\\u2318'"],
    ['%q', 0xdc80n, "'\ufffd'"],
    // integers
    ['%d', -12345n, '-12345'],
    ['%d', -(2n ** 63n), '-9223372036854775808'],
    ['%.d', 0n, ''],
    ['%6.0d', 0n, '      '],
    ['%06.0d', 0n, '      '],
    ['% d', 12345n, ' 12345'],
    ['%+d', 12345n, '+12345'],
    ['%b', -6n, '-110'],
    ['%#b', -6n, '-0b110'],
    ['%#o', -0o1234n, '-01234'],
    ['%O', -0o1234n, '-0o1234'],
    ['%#X', 0n, '0X0'],
    ['%X', 0x12abcdefn, '12ABCDEF'],
    ['%.20b', 7n, '00000000000000000111'],
    ['%010d', -12345n, '-000012345'],
    ['%20.8d', -1234n, '           -00001234'],
    ['%020.8d', 1234n, '            00001234'],
    ['%-#20.8x', 0x1234abcn, '0x01234abc          '],
    ['%U', -1n, 'U+FFFFFFFFFFFFFFFF'],
    ['%#U', 0x0an, 'U+000A'],
    ['%# U', 0x78n, "U+0078 'x'"],
    ['%#.2U', 0x78n, "U+0078 'x'"],
    ['%#U', 0x1d6c2n, "U+1D6C2 '𝛂'"],
    ['%#14.6U', 0x2318n, "  U+002318 '⌘'"],
    ['%#-014.6U', 0x2318n, "U+002318 '⌘'  "],
    // floats
    ['%+.3e', 0, '+0.000e+00'],
    ['%+.3F', -1, '-1.000'],
    ['%+07.2f', -1, '-001.00'],
    ['%-07.2f', 1, '1.00   '],
    ['%+-07.2f', 1, '+1.00  '],
    ['%+10.2f', 1, '     +1.00'],
    ['% .3E', -1, '-1.000E+00'],
    ['% .3e', 1, ' 1.000e+00'],
    ['%+.3g', 0, '+0'],
    ['% .3g', 1, ' 1'],
    ['%#g', 1e-323, '1.00000e-323'],
    ['%#g', 1.1, '1.10000'],
    ['%#g', 123456, '123456.'],
    ['%#g', 1234567, '1.234567e+06'],
    ['%#g', 1230000, '1.23000e+06'],
    ['%#.0f', 1, '1.'],
    ['%#.0e', 1, '1.e+00'],
    ['%#.0g', 1100000, '1.e+06'],
    ['%#.4g', 100000, '1.000e+05'],
    ['%#.4g', 0.123, '0.1230'],
    ['%#.4g', 0, '0.000'],
    ['%#.4g', 0.012, '0.01200'],
    ['%#9.4g', 1, '    1.000'],
    ['%f', Infinity, '+Inf'],
    ['%.1f', -Infinity, '-Inf'],
    ['% f', NaN, ' NaN'],
    ['% 20F', Infinity, '                 Inf'],
    ['% +20E', NaN, '                +NaN'],
    ['%+-20G', NaN, '+NaN                '],
    ['%+020e', Infinity, '                +Inf'],
    ['%-020E', NaN, 'NaN                 '],
    ['%e', 1234.5678e3, '1.234568e+06'],
    ['%f', 1234.5678e-8, '0.000012'],
    ['%f', -1e-9, '-0.000000'],
    ['%g', 1234.5678e-8, '1.2345678e-05'],
    ['%G', 1234.5678e3, '1.2345678E+06'],
    // booleans
    ['%t', true, 'true'],
    ['%v', false, 'false'],
  ];
  it.each(cases)('Sprintf(%j, %s) = %j', (format, value, expected) => {
    expect(goSprintfText(format, value)).toBe(expected);
  });

  it('reports bad verbs, missing and extra arguments and bad indexes as Go does', () => {
    expect(goSprintfText('%d', 'hi')).toBe('%!d(string=hi)');
    expect(goSprintfText('%s', 5n)).toBe('%!s(int64=5)');
    expect(goSprintfText('%d', true)).toBe('%!d(bool=true)');
    expect(goSprintfText('%z', 1.5)).toBe('%!z(float64=1.5)');
    expect(goSprintfText('%d %d', 1n)).toBe('1 %!d(MISSING)');
    expect(goSprintfText('%d', 1n, 'x')).toBe('1%!(EXTRA string=x)');
    expect(goSprintfText('%[3]d', 1n, 2n)).toBe('%!d(BADINDEX)');
    expect(goSprintfText('%[2]d %[1]d', 1n, 2n)).toBe('2 1');
    expect(goSprintfText('50%')).toBe('50%!(NOVERB)');
    expect(goSprintfText('%!')).toBe('%!!(MISSING)');
    expect(goSprintfText('%T %T %T %T', 1n, 1.5, 's', true)).toBe('int64 float64 string bool');
  });
});
