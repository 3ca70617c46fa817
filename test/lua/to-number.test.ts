// gopher-lua's tonumber (baselib.go baseToNumber) differs from Lua's: strings with "." go to Go's
// ParseFloat, others to ParseInt, so exponents without a point are not numbers.
import { afterAll, describe, expect, it } from 'vitest';
import { LuaRuntime } from '../../src/lua/runtime.ts';
import { reflectScript, workload } from './helpers.ts';

const rt = new LuaRuntime();
afterAll(() => rt.close());
const reflect = (body: string) => rt.call('InterpretStatus', reflectScript(body), [workload()]);

/** Each expression's result as the script sees it: the number, or "nil". */
async function tonumbers(expressions: string[]): Promise<unknown[]> {
  const fields = expressions.map((e, i) => `r[${i + 1}] = tostring(${e})`).join('\n');
  const out = (await reflect(`local r = {}\n${fields}\nreturn { values = r }`)) as { values: string[] };
  return out.values;
}

describe('tonumber as gopher-lua', () => {
  it('parses decimal integers and floats after trimming spaces, tabs and newlines', async () => {
    expect(
      await tonumbers([
        'tonumber("42")',
        'tonumber(" \\t42\\n")',
        'tonumber("-7")',
        'tonumber("+7")',
        'tonumber("1.5")',
        'tonumber("5.")',
        'tonumber(".5")',
        'tonumber("1.5e3")',
        'tonumber("2.5E-1")',
      ]),
    ).toEqual(['42', '42', '-7', '7', '1.5', '5', '0.5', '1500', '0.25']);
  });

  // baseToNumber trims only " \t\n" (strings.Trim); a byte-order mark is a byte like any other to Go.
  it('returns nil for a number after a byte-order mark', async () => {
    expect(await tonumbers(['tonumber("\\239\\187\\19142")'])).toEqual(['nil']);
  });

  it('returns nil for exponents without a point, Lua-only forms and bad syntax', async () => {
    expect(
      await tonumbers([
        'tonumber("1e3")',
        'tonumber("1E5")',
        'tonumber("0x1p4")',
        'tonumber("inf")',
        'tonumber("nan")',
        'tonumber("5\\r")',
        'tonumber("")',
        'tonumber("1 2")',
        'tonumber("35.6s")',
        'tonumber("abc")',
      ]),
    ).toEqual(['nil', 'nil', 'nil', 'nil', 'nil', 'nil', 'nil', 'nil', 'nil', 'nil']);
  });

  it('reads a 0x prefix as hex only without a base; honours an explicit base; ParseFloat ignores it', async () => {
    expect(
      await tonumbers([
        'tonumber("0x10")',
        'tonumber("0XfF")',
        'tonumber("ff", 16)',
        'tonumber("0x10", 16)',
        'tonumber("z", 36)',
        'tonumber("777", 8)',
        'tonumber("8", 8)',
        'tonumber("1.5", 16)',
        'tonumber("10", 2.9)',
      ]),
    ).toEqual(['16', '255', '255', 'nil', '35', '511', 'nil', '1.5', '2']);
  });

  // int64 max itself parses, and prints as the float64 it becomes (2^63), as gopher-lua prints it.
  it('returns nil beyond int64, where Lua would give a float', async () => {
    expect(
      await tonumbers([
        'tonumber("9223372036854775807")',
        'tonumber("9223372036854775808")',
        'tonumber("-9223372036854775808")',
        'tonumber("99999999999999999999")',
      ]),
    ).toEqual(['9.223372036854776e+18', 'nil', '-9223372036854775808', 'nil']);
  });

  it('passes numbers through whatever the base, and gives nil for other types', async () => {
    expect(await tonumbers(['tonumber(12.5)', 'tonumber(12, 16)', 'tonumber(nil)', 'tonumber(true)', 'tonumber({})'])).toEqual([
      '12.5',
      '12',
      'nil',
      'nil',
      'nil',
    ]);
  });

  it('raises for a missing argument and a non-number base', async () => {
    await expect(reflect('return { v = tonumber() }')).rejects.toThrow(/bad argument #1 to 'tonumber' \(value expected\)/);
    await expect(reflect('return { v = tonumber("10", "16") }')).rejects.toThrow(/bad argument #2 to 'tonumber' \(number expected, got string\)/);
  });
});

describe('numerals and string coercion as gopher-lua parseNumber', () => {
  // parse/lexer.go scanNumber drops the first 0 of "0" + decimal digit before parseNumber sees the numeral:
  // "010" is 10, "0010" is "010", octal 8. (Hexadecimal floats and binary numerals do not compile: lua51.test.ts.)
  it('reads source numerals as the lexer hands them to ParseInt base 0, then ParseFloat', async () => {
    expect(await tonumbers(['010', '0755', '0010', '08', '0x10', '1e2', '.5', '5.', '1.05', '"a"..010'])).toEqual([
      '10',
      '755',
      '8',
      '8',
      '16',
      '100',
      '0.5',
      '5',
      '1.05',
      'a10',
    ]);
  });

  it('coerces strings in arithmetic and number arguments the same way', async () => {
    expect(await tonumbers(['"010" + 0', '" 0x10\\t" + 0', '"1e2" * 1', '"0b101" + 0', '"1_000" + 0', '"2" ^ 3'])).toEqual([
      '8',
      '16',
      '100',
      '5',
      '1000',
      '8',
    ]);
  });

  it('refuses what Go refuses', async () => {
    await expect(reflect('return { v = "5\\r" + 0 }')).rejects.toThrow(/arithmetic/);
    await expect(reflect('return { v = "1__0" + 0 }')).rejects.toThrow(/arithmetic/);
  });
});

describe('math.max and math.min as gopher-lua', () => {
  it('convert numeric strings and return numbers (fengari would compare the strings)', async () => {
    expect(await reflect(`return { a = math.max("2", "10"), b = math.min("2", "10"), c = math.max("7", 3), d = math.max(1, 5, 3), e = math.min(4) }`)).toEqual({
      a: 10,
      b: 2,
      c: 7,
      d: 5,
      e: 4,
    });
  });

  it('raise without arguments and for non-numeric strings', async () => {
    await expect(reflect('return { v = math.max() }')).rejects.toThrow(/wrong number of arguments/);
    await expect(reflect('return { v = math.min(1, "x") }')).rejects.toThrow(/bad argument #2 to 'min' \(number expected, got string\)/);
  });
});
