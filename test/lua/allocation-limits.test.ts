// Builtins that allocate in proportion to their arguments check what they are about to allocate against
// what is left of the call's memory budget first (issue 31: one table.concat of 480 MB ended the whole
// process with V8's fatal out-of-memory). A generated matrix: for each such builtin, results sized from a
// tenth of the budget to a thousand times it; each call succeeds or fails with the memory-limit error at
// the script's line, never with a JavaScript RangeError or a crash, and the runtime serves afterwards.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { basicValues, goSprintf } from '../../src/go/fmt.ts';
import { goQuote } from '../../src/go/strconv.ts';
import { decodeRune } from '../../src/go/utf8.ts';
import { LuaRuntime, LuaScriptError } from '../../src/lua/runtime.ts';
import { reflectScript, workload } from './helpers.ts';

const BUDGET_MB = 16;
const BUDGET = BUDGET_MB * 1024 * 1024;
const MEMORY_ERROR = `memory limit exceeded: the call grew the heap by more than ${BUDGET_MB} MiB`;
const rt = new LuaRuntime({ poolSize: 1, memoryLimitMb: BUDGET_MB, timeoutMs: 20_000 });
afterAll(() => rt.close());

/** Result sizes, as multiples of the budget. */
const FACTORS = [0.01, 0.1, 0.5, 0.9, 1.1, 10, 1000];

/** A million spaces (the widest Go's fmt pads), and 64 KiB of control characters (%q writes each as \x01). */
const SPACES = 'local s = string.format("%1000000s", "")';
const CONTROLS = 'local s = string.char(1) for i = 1, 16 do s = s .. s end';

interface Case {
  name: string;
  /** The result grows by `unit` bytes with each repetition. */
  unit: number;
  /** At most this many repetitions (the script cannot express more). */
  most?: number;
  /** Budget bytes the builtin takes per byte of its result (the result and what it builds on the way). */
  cost: number;
  /** The function's body, making a result of `n` units; InterpretHealth, or ReflectStatus when `status`. */
  body: (n: number) => string;
  status?: boolean;
}

/** `n` copies of a format verb, as one Lua string. */
const verbs = (verb: string, n: number) => `local f = {} for i = 1, ${n} do f[i] = "${verb}" end f = table.concat(f)`;
/** `n` results of `expression` kept alive. */
const kept = (setup: string, expression: string, n: number) => `${setup} local r = {} for i = 1, ${n} do r[i] = ${expression} end return #r[1] > 0`;

const CASES: Case[] = [
  // the script: many short parts, a long separator
  {
    name: 'table.concat with a 1 MB separator',
    unit: 1e6,
    cost: 1,
    body: (n) => `${SPACES} local t = {} for i = 1, ${n + 1} do t[i] = "x" end return #table.concat(t, s) > 0`,
  },
  {
    name: 'table.concat of one 1 MB string many times',
    unit: 1e6,
    cost: 1,
    body: (n) => `${SPACES} local t = {} for i = 1, ${n} do t[i] = s end return #table.concat(t) > 0`,
  },
  { name: 'string.format widths (%1000000s)', unit: 1e6, cost: 3, body: (n) => `${verbs('%1000000[1]s', n)} return #string.format(f, "") > 0` },
  { name: 'string.format precision (%.999999f)', unit: 1e6, cost: 3, body: (n) => `${verbs('%.999999[1]f', n)} return #string.format(f, 1.5) > 0` },
  { name: 'string.format zero padding (%01000000d)', unit: 1e6, cost: 3, body: (n) => `${verbs('%01000000[1]d', n)} return #string.format(f, 7) > 0` },
  { name: 'string.format %s of a 1 MB argument', unit: 1e6, cost: 3, body: (n) => `${SPACES} ${verbs('%[1]s', n)} return #string.format(f, s) > 0` },
  { name: 'string.format %x of a 1 MB argument', unit: 2e6, cost: 3, body: (n) => `${SPACES} ${verbs('%[1]x', n)} return #string.format(f, s) > 0` },
  {
    name: 'string.format %q of 64 KiB of control characters',
    unit: 4 * 2 ** 16,
    cost: 8,
    body: (n) => `${CONTROLS} ${verbs('%[1]q', n)} return #string.format(f, s) > 0`,
  },
  {
    // 19 bytes per "%c" in UTC: the format is a tenth of the result, so well past the budget it is the
    // format that fails
    name: 'os.date of a long format',
    unit: 19 * 1000,
    cost: 1.2,
    body: (n) => `local t = {} for i = 1, ${n} do t[i] = "${'%c'.repeat(1000)}" end return #os.date("!" .. table.concat(t)) > 0`,
  },
  {
    // one OP_CONCAT (fengari's parser allows 200 levels of nesting)
    name: '.. of up to 150 operands of 1 MB',
    unit: 1e6,
    most: 150,
    cost: 1,
    body: (n) => `${SPACES} local r = ${Array.from({ length: Math.max(n, 2) }, () => 's').join(' .. ')} return #r > 0`,
  },
  // ASCII: the text, its mapping and their bytes
  { name: 'string.upper of 1 MB, kept', unit: 1e6, cost: 3, body: (n) => kept(SPACES, 's:upper()', n) },
  { name: 'string.upper of 512 KiB of "é", kept', unit: 2 ** 19, cost: 5, body: (n) => kept('local s = "é" for i = 1, 18 do s = s .. s end', 's:upper()', n) },
  { name: 'string.reverse of 1 MB, kept', unit: 1e6, cost: 2, body: (n) => kept(SPACES, 's:reverse()', n) },
  { name: 'string.sub of 1 MB, kept', unit: 1e6, cost: 1, body: (n) => kept(SPACES, 's:sub(2)', n) },
  {
    // its strings are decoded (two bytes a byte), and the JSON the worker writes is reserved (four)
    name: 'a result holding one 1 MB string many times',
    unit: 1e6,
    cost: 6,
    status: true,
    body: (n) => `${SPACES} local t = {} for i = 1, ${n} do t[i] = s end return { refs = t }`,
  },
];

function script(c: Case, n: number): string {
  return c.status ? reflectScript(c.body(n)) : `function InterpretHealth(obj)\n${c.body(n)}\nend`;
}

async function outcome(c: Case, n: number): Promise<unknown> {
  const call = c.status ? rt.call('InterpretStatus', script(c, n), [workload()]) : rt.call('InterpretHealth', script(c, n), [workload()]);
  return call.then(
    () => 'ok',
    (e: unknown) => e,
  );
}

const healthy = `function InterpretHealth(obj) return obj.status.readyReplicas == obj.status.replicas end`;

// A call's growth is counted from the heap it starts with; garbage an earlier call left that is collected
// during this one is not held against it (state.ts checkHeap). Each call of the matrix starts from a
// collected heap, so that what it is measured against is its own allocations.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

describe('allocation matrix: builtins × result sizes around the memory budget', () => {
  const seen: string[] = [];
  // ALLOCATION_MATRIX=1 prints each outcome
  afterAll(() => {
    if (process.env.ALLOCATION_MATRIX) console.log(`allocation matrix (budget ${BUDGET_MB} MiB):\n${seen.join('\n')}`);
  });

  for (const c of CASES) {
    for (const factor of FACTORS) {
      it(`${c.name}: ${factor} × the budget`, async () => {
        const n = Math.min(c.most ?? Infinity, Math.max(1, Math.round((factor * BUDGET) / c.unit)));
        const bytes = n * c.unit;
        collectGarbage();
        const result = await outcome(c, n);
        seen.push(
          `${c.name.padEnd(52)} ${String(factor).padStart(5)}× ${(bytes / 1e6).toFixed(1).padStart(7)} MB: ${result === 'ok' ? 'ok' : ((result as LuaScriptError).luaMessage ?? String(result))}`,
        );
        if (result !== 'ok') {
          // the memory-limit error, at the script's line (the result's encoding has none): never a RangeError
          expect(result).toBeInstanceOf(LuaScriptError);
          expect((result as LuaScriptError).luaMessage).toBe(MEMORY_ERROR);
          if (!c.status) expect((result as LuaScriptError).line).toBe(2);
        }
        // well within the budget, counting what the builtin builds on the way, the call succeeds; past it, never
        if (bytes * c.cost <= 0.4 * BUDGET) expect(result).toBe('ok');
        if (bytes >= 1.1 * BUDGET) expect(result).not.toBe('ok');
        // the runtime keeps serving
        expect(await rt.call('InterpretHealth', healthy, [workload()])).toBe(false);
      });
    }
  }
});

describe('the memory limit beside the matrix', () => {
  const health = (body: string) => `function InterpretHealth(obj)\n${body}\nend`;
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('the call succeeded'),
      (e: unknown) => e as LuaScriptError,
    );

  it("the issue's script fails with the memory-limit error at its line on the default budget (128 MiB)", async () => {
    const defaults = new LuaRuntime({ poolSize: 1 });
    try {
      const err = await failure(
        defaults.call(
          'InterpretHealth',
          health('local sep = string.format("%1000000s", "") local t = {} for i = 1, 480 do t[i] = "x" end return #table.concat(t, sep) > 0'),
          [workload()],
        ),
      );
      expect(err).toBeInstanceOf(LuaScriptError);
      expect(err.luaMessage).toBe('memory limit exceeded: the call grew the heap by more than 128 MiB');
      expect(err.line).toBe(2);
      expect(await defaults.call('InterpretHealth', healthy, [workload({ status: { replicas: 1, readyReplicas: 1 } })])).toBe(true);
    } finally {
      defaults.close();
    }
  });

  it('pcall does not swallow it', async () => {
    const err = await failure(
      rt.call('InterpretHealth', health(`${SPACES} local t = {} for i = 1, 100 do t[i] = "x" end local ok = pcall(table.concat, t, s)\nreturn ok`), [
        workload(),
      ]),
    );
    expect(err.luaMessage).toBe(MEMORY_ERROR);
  });

  it('nor does a kube helper encoding its argument', async () => {
    const err = await failure(
      rt.call(
        'InterpretHealth',
        health(
          `${SPACES} local t = {} for i = 1, 100 do t[i] = s end return require("kube").accuratePodRequirements({ spec = { containers = { { name = "c", args = t } } } }) ~= nil`,
        ),
        [workload()],
      ),
    );
    expect(err.luaMessage).toBe(MEMORY_ERROR);
  });

  it("a kube helper's result holding its long namespace many times fails at the budget while it is encoded", async () => {
    const script = (volumes: number) => `function GetDependencies(obj)
      local ns = string.format("%1000000s", "") local vols = {}
      for i = 1, ${volumes} do vols[i] = { name = "v" .. i, configMap = { name = "c" .. i } } end
      return require("kube").getPodDependencies({ spec = { volumes = vols, containers = { { name = "c", image = "x" } } } }, ns)
    end`;
    expect(await rt.call('InterpretDependency', script(1), [workload()])).toHaveLength(1);
    const err = await failure(rt.call('InterpretDependency', script(50), [workload()]));
    expect(err.luaMessage).toBe(MEMORY_ERROR);
  });

  it('tostring of a string is that string (gopher-lua), neither copied nor re-encoded', async () => {
    // a thousand copies of 1 MB would be 60 times the budget
    expect(
      await rt.call('InterpretHealth', health(`${SPACES} local r = {} for i = 1, 1000 do r[i] = tostring(s) end return #r[1000] == 1000000`), [workload()]),
    ).toBe(true);
    expect(await rt.call('InterpretHealth', health('return tostring("\\255\\0x") == "\\255\\0x"'), [workload()])).toBe(true);
  });

  it('os.date keeps the bytes of its format, as Go scans them', async () => {
    expect(
      await rt.call('InterpretHealth', health('local d = os.date("!\\255%Y\\255") return d:byte(1) == 255 and d:byte(6) == 255 and #d == 6'), [workload()]),
    ).toBe(true);
  });

  it('an error message as long as the budget allows comes back cut, saying how long it was', async () => {
    const err = await failure(rt.call('InterpretHealth', health(`${SPACES} local t = {} for i = 1, 4 do t[i] = s end error(table.concat(t))`), [workload()]));
    expect(err.line).toBe(2);
    // Cut to the bound of status messages where it is raised (the worker), keeping its whole length.
    expect(err.luaMessage.length).toBeLessThan(4200);
    expect(err.luaMessage).toMatch(/^ {1000}.*… \(an error message of 4000012 bytes, cut\)$/s);
  });
});

describe('%q of a long string, quoted into one buffer', () => {
  // random byte strings of ASCII, control characters, valid runes of every width and invalid bytes
  const pieces = ['a', ' ', '"', '\\', '\x01', '\n', '\x7f', 'é', '\u0085', '€', '\u200b', '😀', '\u{e0001}', '\ufeff'].map((c) =>
    Buffer.from(c).toString('latin1'),
  );
  const invalid = ['\xff', '\xc3', '\xe2\x82', '\xf0\x9f\x98', '\x80', '\xed\xa0\x80'];
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  /** The same text, quoted a rune at a time (each rune's quoting is checked against Go in test/go/strconv.test.ts). */
  const runeByRune = (s: string, asciiOnly: boolean) => {
    let out = '"';
    for (let i = 0; i < s.length;) {
      const width = decodeRune(s, i)[1];
      out += goQuote(s.slice(i, i + width), asciiOnly).slice(1, -1);
      i += width;
    }
    return `${out}"`;
  };

  it.each([4095, 4096, 4097, 12_000, 40_000])('%i bytes and more: the text quoting each rune gives', (length) => {
    for (let round = 0; round < 5; round++) {
      let s = '';
      while (s.length < length) s += random(8) === 0 ? invalid[random(invalid.length)] : pieces[random(pieces.length)];
      expect(goSprintf('%q', [s], basicValues)).toBe(runeByRune(s, false));
      expect(goSprintf('%+q', [s], basicValues)).toBe(runeByRune(s, true));
    }
  });
});
