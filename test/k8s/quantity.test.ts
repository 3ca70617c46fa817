import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  MAX_QUANTITY_DIGITS,
  MAX_QUANTITY_EXPONENT,
  Quantity,
  QuantityParseError,
  canonicalQuantity,
  quantityEquals,
  quoteForMessage,
} from '../../src/k8s/quantity.ts';

// Expected strings come from apimachinery pkg/api/resource/quantity_test.go (TestQuantityParse,
// TestQuantityString, TestQuantityParseEmit, TestMilliNewSet, TestNewSet, TestAdd, TestSub, ...) and from
// reading quantity.go where the tests are silent; each group names its Go source.

describe('Quantity.parse + toString (Quantity.String / CanonicalizeBytes)', () => {
  const table: Array<[input: string, canonical: string, format: string]> = [
    // zero prints "0" whatever the suffix (TestQuantityParse zero rows, TestQuantityCanocicalizeZero)
    ['0', '0', 'DecimalSI'],
    ['0n', '0', 'DecimalSI'],
    ['0m', '0', 'DecimalSI'],
    ['0Ki', '0', 'BinarySI'],
    ['0Mi', '0', 'BinarySI'],
    ['0G', '0', 'DecimalSI'],
    ['00', '0', 'DecimalSI'],
    ['-0', '0', 'DecimalSI'],
    // canonical form: largest suffix without fractional digits (Quantity doc comment examples)
    ['1000m', '1', 'DecimalSI'],
    ['0.5', '500m', 'DecimalSI'],
    ['0.1', '100m', 'DecimalSI'],
    ['1.5', '1500m', 'DecimalSI'],
    ['1.5Gi', '1536Mi', 'BinarySI'],
    ['1024Mi', '1Gi', 'BinarySI'], // TestQuantityParseEmit
    ['1000M', '1G', 'DecimalSI'], // TestQuantityParseEmit
    ['1.2345', '1234500u', 'DecimalSI'], // Quantity doc comment
    ['0.0005k', '500m', 'DecimalSI'],
    ['1.01E', '1010P', 'DecimalSI'],
    ['50k', '50k', 'DecimalSI'],
    ['40T', '40T', 'DecimalSI'],
    ['12E', '12E', 'DecimalSI'],
    // exponent notation is remembered; exponent lowered to a multiple of 3
    ['1e3', '1e3', 'DecimalExponent'],
    ['1e4', '10e3', 'DecimalExponent'],
    ['1e1', '10', 'DecimalExponent'],
    ['1.2e3', '1200', 'DecimalExponent'],
    ['1.3E+6', '1300e3', 'DecimalExponent'],
    ['0.5e-2', '5e-3', 'DecimalExponent'],
    ['10e-1', '1', 'DecimalExponent'],
    // values finer than nano round up, away from zero ("Things that saturate/round")
    ['0.9n', '1n', 'DecimalSI'],
    ['3.001n', '4n', 'DecimalSI'],
    ['1.1E-9', '2e-9', 'DecimalExponent'],
    ['0.0000000001', '1n', 'DecimalSI'],
    ['0.00000012345', '124n', 'DecimalSI'],
    ['-0.0000000001', '-1n', 'DecimalSI'],
    ['3.14159265358979323846', '3141592654n', 'DecimalSI'],
    // BinarySI: suffix only when exact, else DecimalSI (CanonicalizeBytes note)
    ['1025Mi', '1025Mi', 'BinarySI'],
    ['100.035Ki', '102435840m', 'BinarySI'],
    ['1.1Ki', '1126400m', 'BinarySI'],
    ['0.5Mi', '512Ki', 'BinarySI'],
    ['0.05Gi', '53687091200m', 'BinarySI'],
    ['.001Ki', '1024m', 'BinarySI'], // TestQuantityParseEmit
    ['.000000001Ki', '1024n', 'DecimalSI'], // below 1: parse switches to DecimalSI
    ['0.000000000001Ki', '2n', 'DecimalSI'], // rounds up and changes format (TestQuantityParse "trolls")
    ['1Ki', '1Ki', 'BinarySI'],
    ['8Ki', '8Ki', 'BinarySI'],
    ['4Pi', '4Pi', 'BinarySI'],
    ['3Ei', '3Ei', 'BinarySI'],
    ['-1.5Gi', '-1536Mi', 'BinarySI'],
    // BinarySI is capped at 2^63-1 on parse (quantity.go "The max is just a simple cap")
    ['9Ei', '9223372036854775807', 'BinarySI'],
    ['9223372036854775807Ki', '9223372036854775807', 'BinarySI'],
    // DecimalSI is not capped; beyond E it falls back to an exponent (TestQuantityString "1000E")
    ['18446744073709551616', '18446744073709551616', 'DecimalSI'],
    ['1000E', '1e21', 'DecimalSI'],
    ['5000E', '5e21', 'DecimalSI'],
    // "trolls" that Go accepts
    ['.001', '1m', 'DecimalSI'],
    ['.0001k', '100m', 'DecimalSI'],
    ['.', '0', 'DecimalSI'],
    ['-.', '0', 'DecimalSI'],
    // ParseQuantity keeps the input string when its fast path deems it canonical (q.s), so these print as
    // written, exactly as the API server echoes them back.
    ['1.', '1.', 'DecimalSI'],
    ['1.G', '1.G', 'DecimalSI'],
    ['+1', '+1', 'DecimalSI'],
    ['01', '01', 'DecimalSI'],
    ['1E3', '1E3', 'DecimalExponent'],
    ['2e0', '2e0', 'DecimalExponent'],
    ['100m', '100m', 'DecimalSI'],
    ['100.035k', '100.035k', 'DecimalSI'], // scale 0, digits "100035": Go's fast path keeps the input
    ['10.035M', '10.035M', 'DecimalSI'],
    ['6.987654321G', '6.987654321G', 'DecimalSI'],
    // UnmarshalJSON trims whitespace (TestJSONWhitespace)
    [' 1', '1', 'DecimalSI'],
    ['-1 ', '-1', 'DecimalSI'],
  ];
  it.each(table)('%j -> %j (%s)', (input, canonical, format) => {
    const q = Quantity.parse(input);
    expect(q.toString()).toBe(canonical);
    expect(q.format).toBe(format);
    expect(canonicalQuantity(input)).toBe(canonical);
  });

  it('negated values print with a minus sign (TestQuantityParseEmit negative half)', () => {
    for (const input of ['1Ki', '1Gi', '1024Mi', '1000M', '.001Ki', '.000000000001Ki', '300Mi', '1080m']) {
      const positive = Quantity.parse(input).toString();
      expect(Quantity.parse(`-${input}`).toString()).toBe(`-${positive}`);
    }
  });

  it('canonical strings survive a round trip, value and spelling (TestQuantityString)', () => {
    for (const s of [
      '1Gi',
      '300Mi',
      '6Ki',
      '1001Gi',
      '1Ti',
      '5',
      '500m',
      '1G',
      '1m',
      '80m',
      '1080m',
      '300M',
      '1T',
      '1E',
      '1e21',
      '1234567M',
      '3k',
      '1025',
      '1e9',
      '1e-3',
      '80e-3',
      '300e6',
      '1n',
      '80n',
      '1080n',
      '1u',
    ]) {
      expect(canonicalQuantity(s)).toBe(s);
    }
  });

  it('accepts JSON numbers', () => {
    expect(Quantity.parse(2).toString()).toBe('2');
    expect(Quantity.parse(0.5).toString()).toBe('500m');
    expect(Quantity.parse(1e21).toString()).toBe('1e21');
    expect(Quantity.parse(-3).toString()).toBe('-3');
    expect(() => Quantity.parse(Number.NaN)).toThrow(QuantityParseError);
  });

  const invalid = [
    '',
    '1.1.M',
    '1+1.0M',
    '0.1mi',
    '0.1am',
    'aoeu',
    '.5i',
    '1i',
    '-3.01i',
    '-3.01e-', // TestQuantityParse invalid
    '1ki',
    '1KI',
    '1Kb',
    '1e',
    '--1',
    '1e1.5',
    '1 000',
    '1e99999999999999999999',
  ];
  it.each(invalid)('rejects %j', (input) => {
    expect(() => Quantity.parse(input)).toThrow(QuantityParseError);
    expect(Quantity.tryParse(input)).toBeUndefined();
  });

  it('parseStrict is ParseQuantity: whitespace is an error (TestQuantityParse "trailing whitespace")', () => {
    expect(() => Quantity.parseStrict(' 1')).toThrow(QuantityParseError);
    expect(() => Quantity.parseStrict('1 ')).toThrow(QuantityParseError);
    expect(Quantity.parseStrict('1').toString()).toBe('1');
  });
});

describe('exponent and digit handling Go defines (apimachinery suffix.go interpret, quantity.go ParseQuantity)', () => {
  it('an exponent is strconv.ParseInt(…, 10, 64): past int64 it is ErrSuffix, however it is spelled', () => {
    expect(() => Quantity.parse('1e9223372036854775808')).toThrow(/unknown suffix/);
    expect(() => Quantity.parse(`1e${'1'.repeat(200_000)}`)).toThrow(/unknown suffix "e1111/);
    // leading zeros are fine for ParseInt: this is 1e3, and the fast path keeps the input as its string
    const padded = `1e${'0'.repeat(100_000)}3`;
    expect(Quantity.parse(padded).value()).toBe(1000);
  });

  it('the exponent is narrowed with int32(parsed): it wraps instead of failing', () => {
    // int32(9223372036854775807) = -1: 1e-1, printed as int64Amount{1,-1} canonicalises
    expect(Quantity.parse('1e9223372036854775807').toString()).toBe('100e-3');
    // int32(4294967296) = 0: the value is 1 and the fast path keeps the input string (scale % 3 == 0)
    expect(Quantity.parse('1e4294967296').toString()).toBe('1e4294967296');
    expect(Quantity.parse('1e4294967296').value()).toBe(1);
    // int32(4294967297) = 1
    expect(Quantity.parse('1e4294967297').toString()).toBe('10');
  });

  it('maxInt64Factors (math.go): 18 digits stay on the int64 path, 19 take inf.Dec and print the same digits', () => {
    expect(Quantity.parse('123456789012345678').toString()).toBe('123456789012345678');
    expect(Quantity.parse('1234567890123456789').toString()).toBe('1234567890123456789');
    expect(Quantity.parse('1234567890123456789.5').toString()).toBe('1234567890123456789500m');
  });
});

describe('limits of this server (Go has none; MAX_QUANTITY_DIGITS, MAX_QUANTITY_EXPONENT)', () => {
  it('the attack values of issue 19 are refused with a short message instead of building 10^n', () => {
    for (const [input, reason] of [
      ['1e100000', /exponent 100000 is beyond ±1000/],
      ['1e-100000', /exponent -100000 is beyond ±1000/],
      ['1e2000000000', /exponent 2000000000 is beyond/],
      ['9'.repeat(200_000), /more than 1000 digits/],
      [`0.${'0'.repeat(200_000)}1`, /more than 1000 digits/],
      [`1.${'0'.repeat(200_000)}`, /more than 1000 digits/],
    ] as const) {
      let error: unknown;
      try {
        Quantity.parse(input);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(QuantityParseError);
      expect((error as Error).message).toMatch(reason);
      expect((error as Error).message.length).toBeLessThan(200);
    }
  });

  it('values at the limits are exact and print canonically', () => {
    expect(MAX_QUANTITY_DIGITS).toBe(1000);
    expect(MAX_QUANTITY_EXPONENT).toBe(1000);
    expect(Quantity.parse(`1e${MAX_QUANTITY_EXPONENT}`).toString()).toBe('10e999');
    expect(Quantity.parse(`1e-${MAX_QUANTITY_EXPONENT}`).toString()).toBe('1e-9'); // rounded up to nano
    const thousandDigits = `1${'0'.repeat(MAX_QUANTITY_DIGITS - 1)}`;
    expect(Quantity.parse(thousandDigits).toString()).toBe('1e999'); // DecimalSI past E: exponent form
    expect(Quantity.parse(`${thousandDigits}e${MAX_QUANTITY_EXPONENT}`).toString()).toBe('10e1998');
    const mixed = '12345'.repeat(200);
    expect(Quantity.parse(`${mixed}m`).toString()).toBe(`${mixed}m`);
    expect(Quantity.parse(`${mixed}e${MAX_QUANTITY_EXPONENT}`).add(Quantity.parse('1')).toString()).toBe(`${mixed}${'0'.repeat(999)}1`);
    expect(() => Quantity.parse(`1${'0'.repeat(MAX_QUANTITY_DIGITS)}`)).toThrow(QuantityParseError);
    expect(() => Quantity.parse(`1e${MAX_QUANTITY_EXPONENT + 1}`)).toThrow(QuantityParseError);
  });

  it('BinarySI sums far past Ei print exactly, stopping at Ei', () => {
    let sum = Quantity.zero();
    for (let i = 0; i < 1024; i++) sum = sum.add(Quantity.parse('4Ei'));
    expect(sum.toString()).toBe('4096Ei');
    expect(Quantity.parse('7Ei').add(Quantity.parse('1Ki')).toString()).toBe('7881299347898369Ki');
  });

  it('error messages quote a long input cut short', () => {
    expect(quoteForMessage('x'.repeat(1000))).toBe(`"${'x'.repeat(64)}"... (1000 characters)`);
    expect(quoteForMessage({ a: 'y'.repeat(100) })).toMatch(/^\{"a":"y+\.\.\. \(108 characters\)$/);
    expect(quoteForMessage('short')).toBe('"short"');
  });
});

describe('constructors (NewQuantity / NewMilliQuantity / NewScaledQuantity)', () => {
  it.each([
    [1, 'DecimalSI', '1m'],
    [1000, 'DecimalSI', '1'],
    [1234000, 'DecimalSI', '1234'],
    [1024, 'BinarySI', '1024m'], // format changes below 1024 (TestMilliNewSet)
    [1024 * 1024, 'BinarySI', '1048576m'],
    [1024 * 1024 * 1000, 'BinarySI', '1Mi'],
  ] as const)('fromMilli(%d, %s) -> %s', (value, format, expected) => {
    expect(Quantity.fromMilli(value, format).toString()).toBe(expected);
  });
  it.each([
    [1, 'DecimalSI', '1'],
    [1000, 'DecimalSI', '1k'],
    [1234000, 'DecimalSI', '1234k'],
    [1024, 'BinarySI', '1Ki'],
    [1024 * 1024, 'BinarySI', '1Mi'],
    [1023, 'BinarySI', '1023'],
  ] as const)('fromInt(%d, %s) -> %s (TestNewSet)', (value, format, expected) => {
    expect(Quantity.fromInt(value, format).toString()).toBe(expected);
  });
  it.each([
    [1, -9, '1n'],
    [1000, -9, '1u'],
    [1000, -6, '1m'],
    [1000, -3, '1'],
    [0, -9, '0'],
  ])('fromScaled(%d, %d) -> %s (TestNewScaledSet)', (value, scale, expected) => {
    expect(Quantity.fromScaled(value, scale).toString()).toBe(expected);
  });
  it('zero() takes the format of what is added to it', () => {
    expect(Quantity.zero().toString()).toBe('0');
    expect(Quantity.zero().add(Quantity.parse('1Gi')).toString()).toBe('1Gi');
    expect(Quantity.zero().add(Quantity.parse('1e3')).toString()).toBe('1e3');
  });
});

describe('add / sub (Quantity.Add / Quantity.Sub)', () => {
  const sum = (a: string, b: string) => Quantity.parse(a).add(Quantity.parse(b)).toString();
  const diff = (a: string, b: string) => Quantity.parse(a).sub(Quantity.parse(b)).toString();
  it.each([
    ['100Mi', '100Mi', '200Mi'],
    ['500m', '100m', '600m'],
    ['500m', '500m', '1'],
    ['512Mi', '64Mi', '576Mi'],
    ['1', '1e3', '1001'], // receiver's format (DecimalSI)
    ['1e3', '1', '1001'], // receiver's format (DecimalExponent, exponent 0 prints bare)
    ['1e3', '1e3', '2e3'],
    ['1Gi', '100m', '1073741824100m'], // BinarySI receiver, inexact in base 1024 -> DecimalSI spelling
    ['100m', '1Gi', '1073741824100m'],
    ['1Gi', '1G', '2073741824'], // BinarySI receiver, not a multiple of 1024 -> bare integer
    ['1G', '1Gi', '2073741824'],
    ['1Ki', '1k', '2024'],
    ['0', '1Gi', '1Gi'], // zero receiver adopts y's format (TestQuantityAddZeroPreservesSuffix)
    ['1Gi', '0', '1Gi'],
    ['100m', '0', '100m'],
    ['0', '100m', '100m'],
    ['4Ei', '4Ei', '8Ei'], // overflows int64: exact (inf.Dec path)
    ['9223372036854775807', '1', '9223372036854775808'],
    ['1n', '1', '1000000001n'],
    ['+1', '0', '1'], // arithmetic drops the cached parse string
    ['01', '01', '2'],
    ['100.035k', '0', '100035'],
    ['10.035M', '0', '10035k'],
    ['6.987654321G', '0', '6987654321'],
  ])('%s + %s = %s', (a, b, expected) => {
    expect(sum(a, b)).toBe(expected);
  });
  it.each([
    ['10', '1e1', '0'], // TestSub
    ['10', '1Ki', '-1014'],
    ['1Gi', '512Mi', '512Mi'],
    ['0', '50', '-50'],
    ['0', '1Gi', '-1Gi'], // TestQuantitySubZeroPreservesSuffix
    ['100m', '0', '100m'],
    ['1', '1500m', '-500m'],
    ['0', '-9223372036854775808', '9223372036854775808'], // TestNegAndSubAtMostNegative
    ['10', '-9223372036854775808', '9223372036854775818'], // TestSubMostNegativeCrossScale
  ])('%s - %s = %s', (a, b, expected) => {
    expect(diff(a, b)).toBe(expected);
  });
  it('add and sub do not mutate their operands', () => {
    const a = Quantity.parse('1Gi');
    const b = Quantity.parse('1Mi');
    a.add(b);
    a.sub(b);
    expect([a.toString(), b.toString()]).toEqual(['1Gi', '1Mi']);
  });
  it('a + b - b == a exactly, for arbitrary milli values (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), (x, y) => {
        const a = Quantity.parse(`${x}m`);
        const b = Quantity.parse(`${y}n`);
        expect(a.add(b).sub(b).cmp(a)).toBe(0);
        expect(a.add(b).cmp(b.add(a))).toBe(0);
      }),
    );
  });
});

describe('cmp / equality / sign / isZero', () => {
  it.each([
    ['0', '0', 0],
    ['100m', '50m', 1],
    ['50m', '100m', -1],
    ['10000T', '100Gi', 1], // TestQuantityCmp
    ['1', '1000m', 0],
    ['1Gi', '1073741824', 0],
    ['1Gi', '1G', 1],
    ['-1', '0', -1],
    ['1e3', '1k', 0],
    ['9223372036854775808', '9223372036854775807', 1],
    ['800m', '790m', 1], // TestQuantityCmpInt64AndDec
  ] as const)('cmp(%s, %s) = %d', (a, b, expected) => {
    expect(Quantity.parse(a).cmp(Quantity.parse(b))).toBe(expected);
    expect(Quantity.parse(b).cmp(Quantity.parse(a))).toBe(-expected || 0);
  });
  it('quantityEquals compares values, not spellings', () => {
    expect(quantityEquals('1', '1000m')).toBe(true);
    expect(quantityEquals('1Gi', '1024Mi')).toBe(true);
    expect(quantityEquals('1Gi', '1G')).toBe(false);
    expect(quantityEquals(2, '2')).toBe(true);
    expect(quantityEquals(Quantity.parse('512Mi'), '0.5Gi')).toBe(true);
    expect(quantityEquals('bogus', 'bogus')).toBe(true);
    expect(quantityEquals('bogus', '1')).toBe(false);
  });
  it('sign and isZero', () => {
    expect(Quantity.parse('-5m').sign()).toBe(-1);
    expect(Quantity.parse('0Gi').sign()).toBe(0);
    expect(Quantity.parse('1n').sign()).toBe(1);
    expect(Quantity.parse('0.000').isZero()).toBe(true);
    expect(Quantity.parse('1n').isZero()).toBe(false);
  });
  it('max keeps the larger value', () => {
    expect(Quantity.parse('600m').max(Quantity.parse('1')).toString()).toBe('1');
    expect(Quantity.parse('1Gi').max(Quantity.parse('512Mi')).toString()).toBe('1Gi');
  });
});

describe('milliValue / value (ScaledValue rounds away from zero)', () => {
  it.each([
    ['1', 1000, 1],
    ['100m', 100, 1],
    ['1.5', 1500, 2],
    ['1n', 1, 1],
    ['2n', 1, 1],
    ['1Ki', 1024000, 1024],
    ['-1.5', -1500, -2],
    ['-1n', -1, -1],
    ['0', 0, 0],
  ] as const)('%s: milliValue %d, value %d', (input, milli, value) => {
    const q = Quantity.parse(input);
    expect(q.milliValue()).toBe(milli);
    expect(q.value()).toBe(value);
  });
  it('scaledValueBigInt is exact beyond 2^53', () => {
    expect(Quantity.parse('8Ei').scaledValueBigInt(-3)).toBe(9223372036854775807000n);
  });
});

describe("scaledValueInt64: Go's ScaledValue with its int64 results (amount.go AsScaledInt64, scale_int.go scaledValue)", () => {
  it.each([
    // within int64 both paths agree with the exact value
    ['1', -3, 1000n],
    ['1.5', 0, 2n],
    ['-1.5', 0, -2n],
    ['1n', 0, 1n],
    ['1Gi', 0, 1073741824n],
    // int64Amount path: positiveScaleInt64 overflows and AsScaledInt64 returns 0
    ['10E', 0, 0n],
    ['1e100', -3, 0n],
    ['9e18', -3, 0n],
    ['9e18', 0, 9000000000000000000n],
    // inf.Dec path (more than maxInt64Factors digits): big.Int.Int64 keeps the low 64 bits
    ['12345678901234567890', 0, -6101065172474983726n],
    ['12345678901234567890', -3, 4807115922877858896n],
    // inf.Dec path, negative: int64 division truncates and then adds one, so -1.5 scales to 0
    ['-1.5000000000000000000', 0, 0n],
    // BinarySI capped at MaxInt64 (scale 0): MilliValue multiplies by 1000 in int64 and wraps
    ['9Ei', 0, 9223372036854775807n],
    ['9Ei', -3, -1000n],
  ] as const)('%s at scale %d -> %d', (input, scale, expected) => {
    expect(Quantity.parse(input).scaledValueInt64(scale)).toBe(expected);
  });
});

describe("asApproximateFloat64 (float(unscaled) * math.Pow10(scale) over Go's stored pair)", () => {
  it.each([
    ['0', 0],
    ['1', 1],
    ['100m', 0.1],
    ['1.5', 1.5],
    ['1Gi', 1073741824],
    ['1.5Gi', 1610612736], // inf.Dec path: 1610612736000000000 * 1e-9
    ['1k', 1000],
    ['-250m', -0.25],
    ['1n', 1e-9],
    ['8Ei', Number('9223372036854775807')],
    ['1e21', 1e21],
  ] as const)('%s ~ %d', (input, expected) => {
    expect(Quantity.parse(input).asApproximateFloat64()).toBe(expected);
  });
  it("reproduces Go's rounding of the (unscaled, scale) product", () => {
    // Go: int64Amount{12345, -4} -> 12345 * (1 / 1e4) = 1.2345000000000002 (not 1.2345)
    expect(Quantity.parse('1.2345').asApproximateFloat64()).toBe(12345 * (1 / 1e4));
  });
});

describe('JSON', () => {
  it('serialises as the canonical string', () => {
    expect(JSON.stringify({ cpu: Quantity.parse('1000m'), memory: Quantity.parse('1.5Gi') })).toBe('{"cpu":"1","memory":"1536Mi"}');
  });
});
