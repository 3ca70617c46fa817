// Lua 5.1 / gopher-lua behaviour where fengari (Lua 5.3) differs (spec §5.6, ecosystem §4.4).
import { afterAll, describe, expect, it } from 'vitest';
import { compileCheck } from '../../src/lua/compile-check.ts';
import { LuaRuntime } from '../../src/lua/runtime.ts';
import { reflectScript, workload } from './helpers.ts';

const rt = new LuaRuntime();
afterAll(() => rt.close());
const reflect = (body: string) => rt.call('InterpretStatus', reflectScript(body), [workload()]);

describe('number to string', () => {
  it.each([
    ['3', '3'],
    ['6 / 2', '3'],
    ['2.5', '2.5'],
    ['1e15', '1000000000000000'],
    ['2^53', '9007199254740992'],
    ['0.1 + 0.2', '0.30000000000000004'],
    ['123456.5', '123456.5'],
    ['1234567.5', '1.2345675e+06'],
    ['0.0001', '0.0001'],
    ['0.00001', '1e-05'],
    ['1e20', '1e+20'],
    ['1e19', '1e+19'],
    ['2^62', '4611686018427387904'],
    ['2^63', '9.223372036854776e+18'],
    ['-2^63', '-9223372036854775808'],
    ['math.huge', '1.7976931348623157e+308'],
    ['-0.0', '0'],
    ['1/0', '+Inf'],
    ['-1/0', '-Inf'],
  ])('tostring(%s) == %s, and concatenation agrees', async (expr, expected) => {
    const out = await reflect(`return { s = tostring(${expr}), c = "" .. (${expr}) }`);
    expect(out).toEqual({ s: expected, c: expected });
  });
});

describe('arithmetic', () => {
  it('never wraps at 32 bits (all numerals are floats)', async () => {
    expect(await reflect(`return { a = 2147483647 + 1, b = 1073741824 * 4, c = tonumber("4294967296") * 2, d = 7 / 2, e = 7 % 0 ~= 7 % 0 }`)).toEqual({
      a: 2147483648,
      b: 4294967296,
      c: 8589934592,
      d: 3.5,
      e: true,
    });
  });

  it('math.floor/ceil return floats usable beyond 32 bits', async () => {
    expect(await reflect(`return { a = math.floor(3e9 + 0.5) * 2, b = math.ceil(2.1) }`)).toEqual({ a: 6000000000, b: 3 });
  });
});

describe('5.1 globals', () => {
  it('has unpack, math.pow, math.mod, table.getn, table.maxn, math.huge as max float64', async () => {
    expect(
      await reflect(`local a, b = unpack({1, 2}); local t = {1, 2, 3}; t[10] = 1
      return { a = a, b = b, pow = math.pow(2, 10), mod = math.mod(7, 3), negmod = math.mod(-7, 3), fmod = math.fmod(-7, 3), getn = table.getn({1, 2, 3}), maxn = table.maxn(t),
        huge = math.huge == 1.7976931348623157e308, finite = math.huge < 1/0, atan2 = math.atan2(1, 1) * 4 == math.pi, log10 = math.log10(1000), ldexp = math.ldexp(0.5, 4) }`),
    ).toEqual({
      a: 1,
      b: 2,
      pow: 1024,
      mod: 1,
      negmod: 2,
      fmod: -1,
      getn: 3,
      maxn: 10,
      huge: true,
      finite: true,
      atan2: true,
      log10: 3,
      ldexp: 8,
    });
  });

  it('truncates fractional integer arguments of library functions like gopher-lua CheckInt', async () => {
    expect(
      await reflect(`local s = "hello"; local t = { "a", "b", "c" }
      return { sub = string.sub(s, 1, #s / 2), byte = string.byte(s, 1.9), concat = table.concat(t, ",", 1, 2.5), sel = select(2.7, "x", "y", "z"), big = string.sub(s, 2, 1e10) }`),
    ).toEqual({
      sub: 'he',
      byte: 104,
      concat: 'a,b',
      sel: 'y',
      big: 'ello',
    });
  });

  it('table.sort sorts with or without a comparator and never raises "invalid order function"', async () => {
    expect(
      await reflect(`local a = { 5, 3, 9, 1, 3 }; table.sort(a)
      local b = { "b", "c", "a" }; table.sort(b, function(x, y) return x > y end)
      local c = {}; for i = 1, 50 do c[i] = { x = i % 3 } end
      table.sort(c, function(p, q) return p.x <= q.x end)
      local ordered = true; for i = 2, #c do if c[i - 1].x > c[i].x then ordered = false end end
      return { a = a, b = b, ordered = ordered, n = #c }`),
    ).toEqual({ a: [1, 3, 3, 5, 9], b: ['c', 'b', 'a'], ordered: true, n: 50 });
    await expect(reflect(`local t = { 1, "x" }; table.sort(t); return {}`)).rejects.toThrow(/attempt to compare/);
  });

  it('math.frexp matches C', async () => {
    expect(await reflect(`local m, e = math.frexp(8); local m2, e2 = math.frexp(-3); return { m = m, e = e, m2 = m2, e2 = e2 }`)).toEqual({
      m: 0.5,
      e: 4,
      m2: -0.75,
      e2: 2,
    });
  });
});

describe('string.format as Go fmt.Sprintf over Lua values', () => {
  it.each([
    ['"%d", 2.5', '2'],
    ['"%d", -2.7', '-2'],
    ['"%d", 3', '3'],
    ['"%5d|%-5d|%05d", 42, 42, 42', '   42|42   |00042'],
    ['"%s", 3', '3'],
    ['"%s", 2.5', '2.5'],
    ['"%s", 1e15', '1000000000000000'],
    ['"%v %v", 3, 2.5', '3 2.5'],
    ['"%f", 1.5', '1.500000'],
    ['"%.2f", 3', '3.00'],
    ['"%5.1f%%", 99.44', ' 99.4%'],
    ['"%x %X %o", 255, 255, 8', 'ff FF 10'],
    ['"%e", 123456', '1.234560e+05'],
    ['"%g", 1e6', '1e+06'],
    ['"%g", 0.5', '0.5'],
    ['"%q", "a\\"b"', '"a\\"b"'],
    ['"%s-%s", "a"', 'a-%!s(MISSING)'],
    ['"%s", "a", "extra"', 'a'],
    ['"%s %s", true, nil', 'true nil'],
    ['"%d", "abc"', '0'],
    ['"%d", "12"', '12'],
    ['"%i", 7.9', '7'],
    ['"%c", 65', 'A'],
    ['"%+d", 5', '+5'],
    ['"%f %f", 1/0, -1/0', '+Inf -Inf'],
    ['"%.3g|%.3g|%.3g", 1234.5678, 0.0001234, 2', '1.23e+03|0.000123|2'],
    ['"%8.3f|%-8.2f|", -3.14159, 2.5', '  -3.142|2.50    |'],
    ['"%5s|%-5s|%.2s", "ab", "ab", "abcdef"', '   ab|ab   |ab'],
  ])('string.format(%s) == %j', async (args, expected) => {
    expect(await reflect(`return { s = string.format(${args}) }`)).toEqual({ s: expected });
  });
});

describe('source compatibility', () => {
  it('keeps the character of escapes gopher-lua does not know ("\\." is "."), as Lua 5.1 does', async () => {
    const out = await reflect(`local version = "v1.25"
      return { dot = "a\\.b", found = string.find(version, "\\.") ~= nil, x = "\\x41", tab = "a\\tb", dec = "\\65", quote = 'it\\'s', long = [[\\.]] }`);
    expect(out).toEqual({ dot: 'a.b', found: true, x: 'x41', tab: 'a\tb', dec: 'A', quote: "it's", long: '\\.' });
  });

  // parse/lexer.go scanEscape: up to three decimal digits, written with writeChar (Go's byte(), the low 8 bits).
  it('keeps the low byte of a decimal escape over 255, where Lua 5.3 refuses the script', async () => {
    expect(await reflect(`return { a = "\\300", b = "\\2561", c = "\\0\\65\\0066" }`)).toEqual({ a: ',', b: '\u00001', c: '\u0000A\u00066' });
  });

  it('leaves comments alone and keeps line numbers', async () => {
    const err = await rt
      .call(
        'InterpretStatus',
        `-- a comment with "\\q" inside
--[[ block "\\q"
]]
function ReflectStatus(o)
  local s = "\\q"
  error("boom " .. s)
end`,
        [workload()],
      )
      .then(
        () => undefined,
        (e: unknown) => e as { line: number; luaMessage: string },
      );
    expect(err).toMatchObject({ line: 6, luaMessage: 'boom q' });
  });
});

// gopher-lua v1.1.1 (Karmada's go.mod), parse/lexer.go Scanner.Scan: '~' not followed by '=' is "Invalid '~'
// token", '&' and '|' "Invalid token"; "//", "<<" and ">>" lex as two tokens, which its grammar refuses;
// scanNumber reads only hex digits after "0x".
describe('Lua 5.3 syntax', () => {
  const compileError = (script: string) => {
    try {
      rt.compileCheck(script);
      return undefined;
    } catch (e) {
      return e as { line?: number; luaMessage: string };
    }
  };

  const bitwise = (operator: string) => `'${operator}' is a Lua 5.3 bitwise operator`;
  it.each([
    ['return { n = 7 // 2 }', "'//' is Lua 5.3 integer division (use math.floor(a / b))"],
    ['return { n = 6 & 3 }', bitwise('&')],
    ['return { n = 6 | 3 }', bitwise('|')],
    ['return { n = 6 ~ 3 }', bitwise('~')],
    ['return { n = ~6 }', bitwise('~')],
    ['return { n = 1 << 4 }', bitwise('<<')],
    ['return { n = 16 >> 4 }', bitwise('>>')],
    // parse/lexer.go scanNumber: after "0x" only hex digits, so "0x1p4" is 0x1 then the name p4, "0x.8" an
    // "illegal hexadecimal number"; Lua 5.3 reads each as one float.
    ['return { n = 0x1p4 }', "'0x1p4' is a Lua 5.3 hexadecimal float"],
    ['return { n = 0xA.8 }', "'0xA.8' is a Lua 5.3 hexadecimal float"],
    ['return { n = 0x.8P-1 }', "'0x.8P-1' is a Lua 5.3 hexadecimal float"],
    ['return { n = 0x10. }', "'0x10.' is a Lua 5.3 hexadecimal float"],
    // scanNumber: "0" then the name b101; fengari's lexer would read it whole and Go's parser accept it.
    ['return { n = 0b101 }', "'0b101' is a binary numeral, which Lua does not have"],
    // parser.go.y: break is a laststat, like return; Lua 5.2+ made it an ordinary statement.
    ['for i = 1, 3 do break; n = i end return {}', "'break' is followed by another statement in its block, which Lua 5.1 does not allow"],
  ])("refuses %s as Karmada's Lua does, though fengari would run it", async (body, message) => {
    const script = reflectScript(body);
    const expected = { line: 2, luaMessage: `${message}: Karmada's Lua (gopher-lua, Lua 5.1) does not compile it` };
    expect(compileError(script)).toMatchObject(expected);
    await expect(reflect(body)).rejects.toMatchObject(expected);
  });

  it('reads a hexadecimal number before .. as a concatenation, as gopher-lua does (Lua 5.3: a malformed number)', async () => {
    expect(await reflect("return { s = 0x10..'a', t = 0xFF..0x1, e = 0x1e5 }")).toEqual({ s: '16a', t: '2551', e: 485 });
  });

  it('accepts them in strings and comments, ~= everywhere, goto (gopher-lua parses it too), and break last in its block', async () => {
    const body = `-- a // b & c | d ~ e << f >> g
      --[[ 7 // 2 ]] local s = "a // b & c | d ~ e << f >> g" .. 'x \\' // y' .. [==[ 1 << 2 ]==]
      for i = 1, 3 do if i == 2 then goto done end end ::done::
      for i = 1, 3 do if i == 1 then break; elseif i == 2 then break -- last
      else break end end repeat break until true
      return { s = s, ne = 1 ~= 2, ne2 = 1~=1 }`;
    expect(compileError(reflectScript(body))).toBeUndefined();
    expect(await reflect(body)).toEqual({ s: "a // b & c | d ~ e << f >> gx ' // y 1 << 2 ", ne: true, ne2: false });
  });

  it("is refused by the server's check too (the main thread compiles without a runtime)", () => {
    expect(() => compileCheck(reflectScript('return { n = 7 // 2 }'))).toThrow(
      expect.objectContaining({ line: 2, luaMessage: expect.stringContaining("'//' is Lua 5.3 integer division") }),
    );
  });

  it('reports an earlier error of another kind first, as a parser reading in order does', () => {
    const error = compileError(reflectScript('local x = = 1\n  return { n = 7 // 2 }'));
    expect(error?.line).toBe(2);
    expect(error?.luaMessage).not.toContain('Lua 5.3');
  });
});
