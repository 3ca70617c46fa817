// A fengari lua_State set up as Karmada's sandbox (luavm/lua.go setLib + pkg/util/lifted/lua):
// only the libraries and functions gopher-lua opens there, Lua 5.1 names, the listed base functions
// raising "not supported", safe string/os/package libraries and `require("kube")`.
import {
  appendEntry,
  guardAllocation,
  lua,
  lauxlib,
  lualib,
  luaValue,
  markWritten,
  newString,
  pushString,
  tableAt,
  tableEntries,
  to_luastring,
  type LuaTable,
} from './engine/fengari.ts';
import { goFrexp, goIntOf, goLdexp, goModf, goPow } from '../go/math.ts';
import { decodeRune, encodeRune } from '../go/utf8.ts';
import { formatArgumentCount, luaStringFormat, type FormatArg } from './gopher/string-format.ts';
import { luaNumberToString } from './gopher/numbers.ts';
import { openKube } from './karmada/kube.ts';
import { materialize, pushInterned } from './karmada/lazy.ts';
import { OS_FUNCTIONS } from './gopher/os.ts';
import { gopherToNumber } from './gopher/to-number.ts';

type CFunction = (L: any) => number;
const utf8 = new TextDecoder('utf-8', { fatal: false });

export const UNSUPPORTED_BASE_FUNCTIONS = [
  'collectgarbage',
  'dofile',
  'getfenv',
  'getmetatable',
  'load',
  'loadfile',
  'loadstring',
  'rawequal',
  'rawget',
  'rawset',
  'setfenv',
  'setmetatable',
  'module',
  'newproxy',
] as const;

const BASE_FUNCTIONS = ['assert', 'error', 'ipairs', 'pcall', 'xpcall', 'select', 'tonumber', 'tostring', 'type'];
const STRING_FUNCTIONS = ['find', 'len', 'match', 'reverse'];
const STRING_ARGS_CHECKED: Record<string, number[]> = {
  byte: [1],
  find: [1, 2],
  match: [1, 2],
  gmatch: [1, 2],
  lower: [1],
  upper: [1],
  reverse: [1],
  sub: [1],
};
const MAX_STRING_PARAM_LENGTH = 1_000_000;
const EMPTY_BYTES = new Uint8Array(0);
const MATH_FROM_FENGARI = ['abs', 'acos', 'asin', 'cos', 'exp', 'random', 'randomseed', 'sin', 'sqrt', 'tan', 'pi'];

export function luaToJsString(L: any, index: number): string {
  return utf8.decode(lua.lua_tolstring(L, index));
}

/** luaL_checkstring (numbers are converted in place), as a JS string. */
function checkedString(L: any, index: number): string {
  return utf8.decode(lauxlib.luaL_checklstring(L, index));
}

function setFunction(L: any, name: string, fn: CFunction): void {
  lua.lua_pushcfunction(L, fn);
  lua.lua_setfield(L, -2, to_luastring(name));
}

function copyField(L: any, fromIndex: number, name: string, as = name): void {
  lua.lua_getfield(L, fromIndex, to_luastring(name));
  lua.lua_setfield(L, -2, to_luastring(as));
}

function raise(L: any, message: string): never {
  lauxlib.luaL_error(L, to_luastring(message.replace(/%/g, '%%')));
  throw new Error('unreachable');
}

function unsupported(name: string): CFunction {
  // Karmada's message (its override is a one-line Lua chunk, so it also says "<string>:1:"; we report
  // the calling line instead, which is the useful one).
  return (L) => raise(L, `call function ${name} is not supported in karmada customized resourceinterpreter.`);
}

function stringUnsupported(name: string): CFunction {
  return (L) =>
    raise(
      L,
      `The Lua function string.${name} is not supported by Karmada. If you believe this function is essential for your use case, please submit an issue to let us know why you need it.`,
    );
}

function withStringLengthCheck(fn: CFunction, args: number[]): CFunction {
  return (L) => {
    for (const arg of args) {
      if (lua.lua_type(L, arg) === lua.LUA_TSTRING) {
        const length = lua.lua_rawlen(L, arg);
        if (length > MAX_STRING_PARAM_LENGTH) {
          raise(
            L,
            `string length ${length} exceeds the maximum allowed input string length ${MAX_STRING_PARAM_LENGTH} in Karmada lua string lib, please check your lua script.`,
          );
        }
      }
    }
    return fn(L);
  };
}

function typeName(L: any, index: number): string {
  return utf8.decode(lua.lua_typename(L, lua.lua_type(L, index)));
}

/** A Lua string argument as a byte string (one char per byte), as Go sees it. */
function byteString(L: any, index: number): string {
  return asByteString(L, lua.lua_tolstring(L, index) as Uint8Array);
}

function asByteString(L: any, bytes: Uint8Array): string {
  if (bytes.length <= 8192) return String.fromCharCode(...bytes);
  guardAllocation(L, bytes.length);
  // Node's "latin1" maps each byte to the character of that code (TextDecoder's is windows-1252, which
  // remaps 0x80-0x9f): one copy, where spreading the bytes into String.fromCharCode left eight bytes of
  // garbage per byte.
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
}

/**
 * Pushes a byte string as a Lua string. It may be a tree of concatenations, which reading it copies into
 * one string first: reserved twice its length, with the bytes.
 */
function pushByteString(L: any, s: string): void {
  guardAllocation(L, 2 * s.length);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  pushBytes(L, bytes);
}

/** Pushes bytes the caller made (and no longer changes) as a Lua string, without copying them. */
function pushBytes(L: any, bytes: Uint8Array): void {
  pushString(L, newString(L, bytes));
}

function formatArgAt(L: any, index: number): FormatArg {
  switch (lua.lua_type(L, index)) {
    case lua.LUA_TNUMBER:
      return { type: 'number', value: lua.lua_tonumber(L, index) };
    case lua.LUA_TSTRING:
      return { type: 'string', value: byteString(L, index) };
    case lua.LUA_TBOOLEAN:
      return { type: 'boolean', value: lua.lua_toboolean(L, index) };
    case lua.LUA_TNIL:
    case lua.LUA_TNONE:
      return { type: 'nil' };
    default: {
      const name = typeName(L, index);
      lauxlib.luaL_tolstring(L, index);
      const text = byteString(L, -1);
      lua.lua_pop(L, 1);
      const goType = name === 'table' ? '*lua.LTable' : name === 'function' ? '*lua.LFunction' : name === 'thread' ? '*lua.LState' : '*lua.LUserData';
      return { type: 'other', goType, text };
    }
  }
}

function checkStringLength(L: any, index: number): void {
  if (lua.lua_type(L, index) === lua.LUA_TSTRING && lua.lua_rawlen(L, index) > MAX_STRING_PARAM_LENGTH) {
    raise(
      L,
      `string length ${lua.lua_rawlen(L, index)} exceeds the maximum allowed input string length ${MAX_STRING_PARAM_LENGTH} in Karmada lua string lib, please check your lua script.`,
    );
  }
}

const FORMAT_BYTES_PER_RESERVATION = 64 * 1024;

/** gopher-lua strFormat: fmt.Sprintf over the Lua values, given as many arguments as formatArgumentCount says. */
const stringFormat: CFunction = (L) => {
  lauxlib.luaL_checklstring(L, 1);
  checkStringLength(L, 1);
  const format = byteString(L, 1);
  const count = formatArgumentCount(format);
  const args: FormatArg[] = [];
  const top = lua.lua_gettop(L);
  for (let i = 2; i <= top && args.length < count; i++) args.push(formatArgAt(L, i));
  // Widths and precisions reach 1,000,000 and an argument may be used many times ("%[1]s"): what the
  // formatting makes is reserved before it is made. The output's pieces can share their text (an
  // argument, a padding V8 makes by doubling), so the heap does not show how long it is: with a large
  // piece, and every 64 KiB of output, the text read from it and its bytes (twice its length) are
  // reserved too.
  let reservedAt = 0;
  const reserve = (bytes: number, outputLength: number) => {
    if (bytes < FORMAT_BYTES_PER_RESERVATION && outputLength - reservedAt < FORMAT_BYTES_PER_RESERVATION) {
      guardAllocation(L, bytes);
      return;
    }
    reservedAt = outputLength;
    guardAllocation(L, bytes + 2 * outputLength);
  };
  pushByteString(L, luaStringFormat(format, args, reserve));
  return 1;
};

// --- gopher-lua's argument checks (auxlib.go): integers are Go ints converted from the float64 ---

/** auxlib.go TypeError: "bad argument #n to 'f' (number expected, got string)". */
function typeError(L: any, index: number, expected: string): never {
  const got = lua.lua_type(L, index) === lua.LUA_TNONE ? 'nil' : typeName(L, index);
  lauxlib.luaL_argerror(L, index, to_luastring(`${expected} expected, got ${got}`));
  throw new Error('unreachable');
}

/** CheckInt / OptInt: a number (a numeric string is a type error), converted as Go's int(float64) does on amd64. */
function goIntArg(L: any, index: number, fallback?: number): number {
  const type = lua.lua_type(L, index);
  if (fallback !== undefined && (type === lua.LUA_TNIL || type === lua.LUA_TNONE)) return fallback;
  if (type !== lua.LUA_TNUMBER) typeError(L, index, 'number');
  return goIntOf(lua.lua_tonumber(L, index));
}

/** OptString: nil gives the default; anything but a string (a number too) is a type error. Its bytes. */
function goOptString(L: any, index: number, fallback: Uint8Array): Uint8Array {
  const type = lua.lua_type(L, index);
  if (type === lua.LUA_TNIL || type === lua.LUA_TNONE) return fallback;
  if (type !== lua.LUA_TSTRING) typeError(L, index, 'string');
  return lua.lua_tolstring(L, index);
}

const MIN_INT = -(2 ** 63);
const MAX_INT = 2 ** 63 - 1;
/** Go's i - 1 on a 64-bit int: the smallest int wraps to the largest. */
const goDecrement = (i: number): number => (i === MIN_INT ? MAX_INT : i - 1);

/** stringlib.go luaIndex2StringIndex: a Lua position to a 0-based byte offset. */
function stringIndex(length: number, position: number, start: boolean): number {
  let i = position;
  if (start && i !== 0) i = goDecrement(i);
  if (i < 0) i = length + i + 1;
  i = Math.max(0, i);
  if (!start && i > length) i = length;
  return i;
}

// --- the string library: gopher-lua's index rules around fengari's pattern matcher ---

/** strSub: start and end as luaIndex2StringIndex gives them; empty when start is past the end. */
const stringSub: CFunction = (L) => {
  lauxlib.luaL_checklstring(L, 1);
  const bytes = lua.lua_tolstring(L, 1) as Uint8Array;
  const length = bytes.length;
  const start = stringIndex(length, goIntArg(L, 2), true);
  const end = stringIndex(length, goIntArg(L, 3, -1), false);
  if (start >= length || end < start) lua.lua_pushstring(L, bytes.subarray(0, 0));
  else {
    guardAllocation(L, end - start);
    lua.lua_pushstring(L, bytes.subarray(start, end));
  }
  return 1;
};

/**
 * strByte: the end defaults to -1, not to the start, so `string.byte(s)` returns every byte; with
 * exactly two arguments only that byte.
 */
const stringByte: CFunction = (L) => {
  lauxlib.luaL_checklstring(L, 1);
  const bytes = lua.lua_tolstring(L, 1) as Uint8Array;
  const length = bytes.length;
  let start = goDecrement(goIntArg(L, 2, 1));
  let end = goIntArg(L, 3, -1);
  if (start < 0) start = length + start + 1;
  if (end < 0) end = length + end + 1;
  if (lua.lua_gettop(L) === 2) {
    if (start < 0 || start >= length) return 0;
    lua.lua_pushnumber(L, bytes[start]);
    return 1;
  }
  start = Math.max(start, 0);
  end = Math.min(end, length);
  if (end < 0 || end <= start || start >= length) return 0;
  lauxlib.luaL_checkstack(L, end - start, to_luastring('string slice too long'));
  for (let i = start; i < end; i++) lua.lua_pushnumber(L, bytes[i]);
  return end - start;
};

/** strChar: each argument's Go int truncated to a byte (uint8), so 256 is "\0" and -1 is "\255". */
const stringChar: CFunction = (L) => {
  const top = lua.lua_gettop(L);
  const bytes = new Uint8Array(top);
  for (let i = 1; i <= top; i++) bytes[i - 1] = ((goIntArg(L, i) % 256) + 256) % 256;
  lua.lua_pushstring(L, bytes);
  return 1;
};

/**
 * strings.ToLower / ToUpper: ASCII strings byte by byte; any other string rune by rune with Unicode's
 * simple case mapping (one rune to one rune: "ß" stays), invalid UTF-8 bytes becoming U+FFFD as
 * strings.Map writes them. JavaScript only offers full case mapping, so a rune whose full mapping has
 * several runes is left as it is (its simple mapping, except U+0130, which lowers to "i"). The result is
 * written as bytes: at most three per input byte (an invalid byte becomes U+FFFD), reserved first.
 */
const asciiText = new TextDecoder();
const asciiBytes = new TextEncoder();

function goMapCase(L: any, bytes: Uint8Array, upper: boolean): Uint8Array {
  let ascii = true;
  for (let i = 0; i < bytes.length; i++)
    if (bytes[i]! >= 0x80) {
      ascii = false;
      break;
    }
  if (ascii && bytes.length > 4096) {
    // the text, its mapping and their bytes; JavaScript's case mapping of ASCII is ASCII's
    guardAllocation(L, 3 * bytes.length);
    const text = asciiText.decode(bytes);
    return asciiBytes.encode(upper ? text.toUpperCase() : text.toLowerCase());
  }
  if (ascii) {
    const out = new Uint8Array(bytes.length);
    const from = upper ? 0x61 : 0x41;
    const shift = upper ? -0x20 : 0x20;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      out[i] = b >= from && b <= from + 25 ? b + shift : b;
    }
    return out;
  }
  const s = asByteString(L, bytes);
  guardAllocation(L, 3 * bytes.length);
  const out = new Uint8Array(3 * bytes.length);
  let n = 0;
  for (let i = 0; i < s.length;) {
    const [r, width] = decodeRune(s, i);
    i += width;
    let mapped = r;
    if (!upper && r === 0x130) mapped = 0x69;
    else if (r !== 0xfffd) {
      const cased = upper ? String.fromCodePoint(r).toUpperCase() : String.fromCodePoint(r).toLowerCase();
      const first = cased.codePointAt(0)!;
      if (cased.length === String.fromCodePoint(first).length) mapped = first;
    }
    const encoded = encodeRune(mapped);
    for (let k = 0; k < encoded.length; k++) out[n++] = encoded.charCodeAt(k);
  }
  guardAllocation(L, n);
  return out.slice(0, n);
}

const stringLower: CFunction = (L) => {
  pushBytes(L, goMapCase(L, lauxlib.luaL_checklstring(L, 1), false));
  return 1;
};

const stringUpper: CFunction = (L) => {
  pushBytes(L, goMapCase(L, lauxlib.luaL_checklstring(L, 1), true));
  return 1;
};

const PERCENT = 0x25;
/** Class letters gopher-lua's pm does not know (`%g`) or does not treat as a class (`%f`, Lua 5.2's frontier). */
const NOT_GOPHER_CLASSES = new Set([0x67 /* g */, 0x47 /* G */, 0x66 /* f */]);

/**
 * The pattern as gopher-lua's pm reads it (pm.go parsePattern, parseClass): `%g`, `%G` and `%f` are the
 * letters themselves there, where fengari matches printable characters or a frontier. Undefined when
 * nothing changes. `%b` takes the next two characters as they are, outside sets.
 */
function gopherPattern(pattern: Uint8Array): Uint8Array | undefined {
  if (!mayHaveNonGopherClass(pattern)) return undefined;
  const out: number[] = [];
  let changed = false;
  let inSet = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === PERCENT && i + 1 < pattern.length) {
      const next = pattern[i + 1]!;
      if (NOT_GOPHER_CLASSES.has(next)) {
        changed = true;
        out.push(next);
      } else {
        const width = next === 0x62 /* b */ && !inSet ? 4 : 2;
        out.push(...pattern.subarray(i, i + width));
        i += width - 2;
      }
      i++;
      continue;
    }
    out.push(c);
    if (!inSet && c === 0x5b /* [ */) {
      inSet = true;
      // A "]" right after "[" or "[^" is a member, not the end.
      if (pattern[i + 1] === 0x5e /* ^ */) out.push(pattern[++i]!);
      if (pattern[i + 1] === 0x5d /* ] */) out.push(pattern[++i]!);
    } else if (inSet && c === 0x5d /* ] */) {
      inSet = false;
    }
  }
  return changed ? Uint8Array.from(out) : undefined;
}

/** Whether a `%` (not one of a `%%` pair) is followed by g, G or f: most patterns are left as they are at once. */
function mayHaveNonGopherClass(pattern: Uint8Array): boolean {
  for (let i = pattern.indexOf(PERCENT); i !== -1 && i + 1 < pattern.length; i = pattern.indexOf(PERCENT, i + 2)) {
    if (NOT_GOPHER_CLASSES.has(pattern[i + 1]!)) return true;
  }
  return false;
}

/** Replaces the pattern at `index` with gopherPattern's reading of it. */
function usePmPattern(L: any, index: number): void {
  const pattern = gopherPattern(lua.lua_tolstring(L, index) as Uint8Array);
  if (pattern === undefined) return;
  lua.lua_pushstring(L, pattern);
  lua.lua_replace(L, index);
}

/**
 * strFind: an empty pattern finds (1, 0) whatever the init; the init is luaIndex2StringIndex's (not
 * clamped to the end); past the end a pattern search finds nothing and a plain one raises Go's slice
 * error; `plain` counts only as the fourth of exactly four arguments.
 */
function stringFind(find: CFunction): CFunction {
  return (L) => {
    lauxlib.luaL_checklstring(L, 1);
    lauxlib.luaL_checklstring(L, 2);
    const length = lua.lua_rawlen(L, 1);
    if (lua.lua_rawlen(L, 2) === 0) {
      lua.lua_pushnumber(L, 1);
      lua.lua_pushnumber(L, 0);
      return 2;
    }
    const init = stringIndex(length, goIntArg(L, 3, 1), true);
    const plain = lua.lua_gettop(L) === 4 && lua.lua_toboolean(L, 4);
    if (init > length) {
      if (plain) raise(L, `runtime error: slice bounds out of range [${init}:${length}]`);
      lua.lua_pushnil(L);
      return 1;
    }
    lua.lua_settop(L, 2);
    if (!plain) usePmPattern(L, 2);
    lua.lua_pushinteger(L, init + 1);
    lua.lua_pushboolean(L, plain);
    return find(L);
  };
}

/** strMatch: a negative init counts from the end, then clamps at the start; no match returns no value. */
function stringMatch(match: CFunction): CFunction {
  return (L) => {
    lauxlib.luaL_checklstring(L, 1);
    lauxlib.luaL_checklstring(L, 2);
    const length = lua.lua_rawlen(L, 1);
    let offset = goIntArg(L, 3, 1);
    if (offset < 0) offset = length + offset + 1;
    offset = Math.max(goDecrement(offset), 0);
    if (offset > length) return 0;
    lua.lua_settop(L, 2);
    usePmPattern(L, 2);
    lua.lua_pushinteger(L, offset + 1);
    const results = match(L);
    if (results === 1 && lua.lua_isnil(L, -1)) return 0;
    return results;
  };
}

/**
 * strGmatch over pm.Find: every match from the start, each search beginning where the last match ended
 * (one further after an empty match), so "[^,]*" over "a,b" gives "a", "", "b", "" as in Lua 5.1 (Lua
 * 5.3's gmatch skips an empty match right after a match). A pattern starting with "^" is anchored: at
 * most one match, at the start. Each step runs fengari's find from the next position.
 */
function stringGmatch(find: CFunction): CFunction {
  return (L) => {
    lauxlib.luaL_checklstring(L, 1);
    lauxlib.luaL_checklstring(L, 2);
    const anchored = (lua.lua_tolstring(L, 2) as Uint8Array)[0] === 0x5e;
    lua.lua_settop(L, 2);
    usePmPattern(L, 2);
    let position = 0;
    let done = false;
    lua.lua_pushcclosure(
      L,
      (Ls: any) => {
        if (done) return 0;
        const length = lua.lua_rawlen(Ls, lua.lua_upvalueindex(1));
        if (position > length) {
          done = true;
          return 0;
        }
        const base = lua.lua_gettop(Ls);
        lua.lua_pushcfunction(Ls, find);
        lua.lua_pushvalue(Ls, lua.lua_upvalueindex(1));
        lua.lua_pushvalue(Ls, lua.lua_upvalueindex(2));
        lua.lua_pushinteger(Ls, position + 1);
        lua.lua_pushboolean(Ls, false);
        lua.lua_call(Ls, 4, lua.LUA_MULTRET);
        if (anchored) done = true;
        if (lua.lua_isnil(Ls, base + 1)) {
          done = true;
          return 0;
        }
        const start = lua.lua_tointeger(Ls, base + 1);
        const end = lua.lua_tointeger(Ls, base + 2);
        position = Math.max(start, end);
        const captures = lua.lua_gettop(Ls) - base - 2;
        if (captures > 0) return captures;
        const bytes = lua.lua_tolstring(Ls, lua.lua_upvalueindex(1)) as Uint8Array;
        lua.lua_pushstring(Ls, bytes.subarray(start - 1, end));
        return 1;
      },
      2,
    );
    return 1;
  };
}

const number1 =
  (fn: (x: number) => number): CFunction =>
  (L) => {
    lua.lua_pushnumber(L, fn(lauxlib.luaL_checknumber(L, 1)));
    return 1;
  };

/**
 * gopher-lua math.max / math.min: every argument through CheckNumber (numeric strings converted), the
 * result a number. fengari compares the original values, so numeric strings compare as strings
 * (math.max("2", "10") is "2") and a string mixed with a number raises.
 */
function mathExtreme(pick: (candidate: number, best: number) => boolean): CFunction {
  return (L) => {
    const top = lua.lua_gettop(L);
    if (top === 0) raise(L, 'wrong number of arguments');
    let best = lauxlib.luaL_checknumber(L, 1);
    for (let i = 2; i <= top; i++) {
      const candidate = lauxlib.luaL_checknumber(L, i);
      if (pick(candidate, best)) best = candidate;
    }
    lua.lua_pushnumber(L, best);
    return 1;
  };
}

const mathExtras: Record<string, CFunction> = {
  max: mathExtreme((candidate, best) => candidate > best),
  min: mathExtreme((candidate, best) => candidate < best),
  // Lua 5.1 floor/ceil return floats; fengari's would return (32-bit) integers.
  floor: number1(Math.floor),
  ceil: number1(Math.ceil),
  atan: number1(Math.atan),
  atan2: (L) => {
    lua.lua_pushnumber(L, Math.atan2(lauxlib.luaL_checknumber(L, 1), lauxlib.luaL_checknumber(L, 2)));
    return 1;
  },
  cosh: number1(Math.cosh),
  sinh: number1(Math.sinh),
  tanh: number1(Math.tanh),
  log10: number1(Math.log10),
  log: number1(Math.log),
  // Go's expressions, in Go's order of operations (x * 180 / Pi rounds differently from x * (180 / Pi)).
  deg: number1((x) => (x * 180) / Math.PI),
  rad: number1((x) => (x * Math.PI) / 180),
  // math.Mod on any two numbers (fengari raises for two integer-typed arguments and a zero divisor).
  fmod: (L) => {
    lua.lua_pushnumber(L, lauxlib.luaL_checknumber(L, 1) % lauxlib.luaL_checknumber(L, 2));
    return 1;
  },
  modf: (L) => {
    const [int, frac] = goModf(lauxlib.luaL_checknumber(L, 1));
    lua.lua_pushnumber(L, int);
    lua.lua_pushnumber(L, frac);
    return 2;
  },
  pow: (L) => {
    lua.lua_pushnumber(L, goPow(lauxlib.luaL_checknumber(L, 1), lauxlib.luaL_checknumber(L, 2)));
    return 1;
  },
  ldexp: (L) => {
    lua.lua_pushnumber(L, goLdexp(lauxlib.luaL_checknumber(L, 1), goIntArg(L, 2)));
    return 1;
  },
  frexp: (L) => {
    const [m, e] = goFrexp(lauxlib.luaL_checknumber(L, 1));
    lua.lua_pushnumber(L, m);
    lua.lua_pushnumber(L, e);
    return 2;
  },
  // gopher-lua's math.mod is luaModulo (the sign follows the divisor, like `%`), not fmod.
  mod: (L) => {
    const divisor = lauxlib.luaL_checknumber(L, 2);
    let result = lauxlib.luaL_checknumber(L, 1) % divisor;
    if ((divisor > 0 && result < 0) || (divisor < 0 && result > 0)) result += divisor;
    lua.lua_pushnumber(L, result);
    return 1;
  },
};

// --- the table library as tablelib.go, on top of `#` = gopher-lua's LTable.Len (see fengari.ts) ---

/** LTable.Len of the table at `index` (a lazy table is materialized by its __len). */
function tableLength(L: any, index: number): number {
  return lauxlib.luaL_len(L, index);
}

/** t[key] = value on top of the stack (popped); keys beyond fengari's 32-bit integers as float keys. */
function setTableAt(L: any, table: number, key: number): void {
  if ((key | 0) === key) {
    lua.lua_seti(L, table, key);
    return;
  }
  lua.lua_pushnumber(L, key);
  lua.lua_insert(L, -2);
  lua.lua_settable(L, table);
}

/** table.getn and table.maxn are both LTable.Len in gopher-lua (the last non-nil array slot). */
const tableGetn: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  lua.lua_pushnumber(L, tableLength(L, 1));
  return 1;
};

/**
 * tableInsert: with two arguments, append (a nil value is ignored); with a position, shift the slots
 * from it up by one when it lies within the array, and otherwise just set t[pos] (no "position out of
 * bounds" error); extra arguments are ignored.
 */
const tableInsert: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  const nargs = lua.lua_gettop(L);
  if (nargs === 1) raise(L, 'wrong number of arguments');
  if (nargs === 2) {
    if (lua.lua_isnil(L, 2)) return 0;
    const n = tableLength(L, 1);
    lua.lua_pushvalue(L, 2);
    setTableAt(L, 1, n + 1);
    return 0;
  }
  const position = goIntArg(L, 2);
  const n = tableLength(L, 1);
  if (position > n || position <= 0) {
    lua.lua_pushvalue(L, 3);
    setTableAt(L, 1, position);
    return 0;
  }
  for (let i = n; i >= position; i--) {
    lua.lua_geti(L, 1, i);
    lua.lua_seti(L, 1, i + 1);
  }
  lua.lua_pushvalue(L, 3);
  lua.lua_seti(L, 1, position);
  return 0;
};

/**
 * tableRemove: without a position, or with one at or beyond the last slot or below 1, the last element is
 * removed and returned; a position past the end removes nothing; otherwise the slots above shift down.
 * Always one result (nil when nothing was removed).
 */
const tableRemove: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  const position = lua.lua_gettop(L) === 1 ? -1 : goIntArg(L, 2);
  const n = tableLength(L, 1);
  lua.lua_settop(L, 1);
  if (n === 0) {
    lua.lua_pushnil(L);
    return 1;
  }
  const i = goDecrement(position);
  if (i >= n) {
    lua.lua_pushnil(L);
    return 1;
  }
  if (i === n - 1 || i < 0) {
    lua.lua_geti(L, 1, n);
    lua.lua_pushnil(L);
    lua.lua_seti(L, 1, n);
    return 1;
  }
  lua.lua_geti(L, 1, position); // the result, kept at index 2
  for (let k = position; k < n; k++) {
    lua.lua_geti(L, 1, k + 1);
    lua.lua_seti(L, 1, k);
  }
  lua.lua_pushnil(L);
  lua.lua_seti(L, 1, n);
  return 1;
};

/**
 * tableConcat: i and j are clamped into [1, #t] (an i alone outside it gives ""), so a range past the
 * end is not an error; numbers print as tostring does; other values raise. The result's length is known
 * before it is made: reserved, then written once.
 */
const tableConcat: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  const separator = goOptString(L, 2, EMPTY_BYTES);
  const length = tableLength(L, 1);
  let i = goIntArg(L, 3, 1);
  let j = goIntArg(L, 4, length);
  if (lua.lua_gettop(L) === 3 && (i > length || i < 1)) {
    lua.lua_pushstring(L, EMPTY_BYTES);
    return 1;
  }
  i = Math.max(Math.min(i, length), 1);
  j = Math.min(j, length);
  if (i > j) {
    lua.lua_pushstring(L, EMPTY_BYTES);
    return 1;
  }
  const parts: Uint8Array[] = [];
  let total = separator.length * (j - i);
  for (let k = i; k <= j; k++) {
    const type = lua.lua_geti(L, 1, k);
    let part: Uint8Array;
    if (type === lua.LUA_TNUMBER) part = to_luastring(luaNumberToString(lua.lua_tonumber(L, -1)));
    else if (type === lua.LUA_TSTRING) part = lua.lua_tolstring(L, -1);
    else raise(L, `invalid value (${typeName(L, -1)}) at index ${k} in table for concat`);
    lua.lua_pop(L, 1);
    parts.push(part);
    total += part.length;
  }
  guardAllocation(L, total);
  const out = new Uint8Array(total);
  let at = 0;
  parts.forEach((part, k) => {
    if (k > 0) {
      out.set(separator, at);
      at += separator.length;
    }
    out.set(part, at);
    at += part.length;
  });
  pushBytes(L, out);
  return 1;
};

/** What sorting costs per element: an entry of the scratch table (~165 bytes), the order array and sort's own. */
const SORT_BYTES_PER_ELEMENT = 200;

/**
 * table.sort without Lua 5.3's "invalid order function for sorting": gopher-lua sorts with Go's sort
 * package, which never raises for an inconsistent comparator (e.g. `a.x <= b.x`). Values are copied
 * to a scratch table, indices sorted in JS (the Lua comparator still runs under the count hook), and
 * written back.
 */
const tableSort: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  const n = lauxlib.luaL_len(L, 1);
  const hasComparator = !lua.lua_isnoneornil(L, 2);
  if (hasComparator) lauxlib.luaL_checktype(L, 2, lua.LUA_TFUNCTION);
  lua.lua_settop(L, 2);
  guardAllocation(L, n * SORT_BYTES_PER_ELEMENT);
  lua.lua_createtable(L, n, 0); // 3: scratch copy
  for (let i = 1; i <= n; i++) {
    lua.lua_rawgeti(L, 1, i);
    lua.lua_rawseti(L, 3, i);
  }
  const lessThan = (a: number, b: number): boolean => {
    if (hasComparator) {
      lua.lua_pushvalue(L, 2);
      lua.lua_rawgeti(L, 3, a);
      lua.lua_rawgeti(L, 3, b);
      lua.lua_call(L, 2, 1);
      const result = lua.lua_toboolean(L, -1);
      lua.lua_pop(L, 1);
      return result;
    }
    lua.lua_rawgeti(L, 3, a);
    lua.lua_rawgeti(L, 3, b);
    const result = lua.lua_compare(L, -2, -1, lua.LUA_OPLT);
    lua.lua_pop(L, 2);
    return result;
  };
  const order = Array.from({ length: n }, (_, i) => i + 1);
  order.sort((a, b) => (lessThan(a, b) ? -1 : lessThan(b, a) ? 1 : 0));
  order.forEach((from, i) => {
    lua.lua_rawgeti(L, 3, from);
    lua.lua_rawseti(L, 1, i + 1);
  });
  // lua_rawseti, unlike the VM's writes, does not mark the table written (state.ts relies on the mark).
  markWritten(tableAt(L, 1));
  return 0;
};

/**
 * `next` and `pairs` see every key, so a lazy table (lazy.ts) is materialized first. Otherwise they are
 * fengari's (pairs without __pairs: no table a script can reach has a metatable of its own).
 */
const luaNext: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  materialize(L, 1);
  lua.lua_settop(L, 2);
  if (lua.lua_next(L, 1) !== 0) return 2;
  lua.lua_pushnil(L);
  return 1;
};

const luaPairs: CFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  materialize(L, 1);
  lua.lua_pushcfunction(L, luaNext);
  lua.lua_pushvalue(L, 1);
  lua.lua_pushnil(L);
  return 3;
};

/** Lua 5.1 tostring/print formatting of any value (numbers as gopher-lua prints them). */
export function luaValueToString(L: any, index: number): string {
  if (lua.lua_type(L, index) === lua.LUA_TNUMBER) return luaNumberToString(lua.lua_tonumber(L, index));
  lauxlib.luaL_tolstring(L, index);
  const text = luaToJsString(L, -1);
  lua.lua_pop(L, 1);
  return text;
}

export interface SandboxHandles {
  /** Registry reference of the table every per-call environment is a copy of (pushFreshGlobals). */
  baseRef: number;
  /** Registry references of the tables a script could mutate (base, libraries, package, kube). */
  protectedRefs: number[];
}

/**
 * Builds the sandbox inside a fresh state. `print` lines go to `onPrint()` (read at call time, so the
 * runtime can route them per call).
 */
export function openSandbox(L: any, onPrint: () => ((line: string) => void) | undefined): SandboxHandles {
  // Open fengari's libraries as globals first, then copy only what Karmada offers into `base`.
  lauxlib.luaL_requiref(L, to_luastring('_G'), lualib.luaopen_base, 1);
  lauxlib.luaL_requiref(L, to_luastring('table'), lualib.luaopen_table, 1);
  lauxlib.luaL_requiref(L, to_luastring('string'), lualib.luaopen_string, 1);
  lauxlib.luaL_requiref(L, to_luastring('math'), lualib.luaopen_math, 1);
  lua.lua_settop(L, 0);
  lua.lua_pushglobaltable(L); // 1: fengari's globals
  const fengariGlobals = 1;

  lua.lua_createtable(L, 0, 48); // 2: base
  const base = 2;
  for (const name of BASE_FUNCTIONS) copyField(L, fengariGlobals, name);
  for (const name of UNSUPPORTED_BASE_FUNCTIONS) setFunction(L, name, unsupported(name));
  setFunction(L, 'print', (Ls) => {
    // The line is built whole (the worker keeps its first KiB): its text (two bytes a character at
    // most) and the joined line.
    let bytes = 0;
    for (let i = 1, top = lua.lua_gettop(Ls); i <= top; i++) if (lua.lua_type(Ls, i) === lua.LUA_TSTRING) bytes += lua.lua_rawlen(Ls, i);
    guardAllocation(Ls, 4 * bytes);
    const parts: string[] = [];
    for (let i = 1, top = lua.lua_gettop(Ls); i <= top; i++) parts.push(luaValueToString(Ls, i));
    onPrint()?.(parts.join('\t'));
    return 0;
  });
  setFunction(L, 'next', luaNext);
  setFunction(L, 'pairs', luaPairs);
  setFunction(L, 'tonumber', (Ls) => {
    // The string is decoded (two bytes a character at most), trimmed and lowercased: three copies.
    if (lua.lua_type(Ls, 1) === lua.LUA_TSTRING) guardAllocation(Ls, 6 * lua.lua_rawlen(Ls, 1));
    return gopherToNumber(Ls);
  });
  setFunction(L, 'tostring', (Ls) => {
    lauxlib.luaL_checkany(Ls, 1);
    // A string is its own string (gopher-lua's LString.String()): the same value, bytes untouched.
    if (lua.lua_type(Ls, 1) === lua.LUA_TSTRING) lua.lua_pushvalue(Ls, 1);
    else lua.lua_pushstring(Ls, to_luastring(luaValueToString(Ls, 1)));
    return 1;
  });
  setFunction(L, '_printregs', () => 0);
  lua.lua_pushstring(L, to_luastring('Lua 5.1'));
  lua.lua_setfield(L, base, to_luastring('_VERSION'));
  lua.lua_pushstring(L, to_luastring('GopherLua 0.1'));
  lua.lua_setfield(L, base, to_luastring('_GOPHER_LUA_VERSION'));

  // table (Lua 5.1 names; no pack/unpack/move)
  lua.lua_getfield(L, fengariGlobals, to_luastring('table'));
  const fengariTable = lua.lua_gettop(L);
  lua.lua_getfield(L, fengariTable, to_luastring('unpack'));
  lua.lua_setfield(L, base, to_luastring('unpack'));
  lua.lua_createtable(L, 0, 6);
  setFunction(L, 'concat', tableConcat);
  setFunction(L, 'insert', tableInsert);
  setFunction(L, 'remove', tableRemove);
  setFunction(L, 'sort', tableSort);
  setFunction(L, 'getn', tableGetn);
  setFunction(L, 'maxn', tableGetn);
  lua.lua_setfield(L, base, to_luastring('table'));
  lua.lua_pop(L, 1);

  // string: keep fengari's table (its metatable makes ("x"):upper() work) but reshape its contents.
  lua.lua_getfield(L, fengariGlobals, to_luastring('string'));
  const stringLib = lua.lua_gettop(L);
  const originals = new Map<string, CFunction>();
  for (const name of STRING_FUNCTIONS) {
    lua.lua_getfield(L, stringLib, to_luastring(name));
    originals.set(name, lua.lua_tocfunction(L, -1));
    lua.lua_pop(L, 1);
  }
  lua.lua_pushnil(L);
  while (lua.lua_next(L, stringLib) !== 0) {
    // clear it (keys collected first: no writes while iterating)
    lua.lua_pop(L, 1);
    lua.lua_pushvalue(L, -1);
    lua.lua_pushnil(L);
    lua.lua_rawset(L, stringLib);
  }
  const fengariFind = originals.get('find')!;
  const stringFunctions: Record<string, CFunction> = {
    byte: stringByte,
    char: stringChar,
    find: stringFind(fengariFind),
    gmatch: stringGmatch(fengariFind),
    len: originals.get('len')!,
    lower: stringLower,
    match: stringMatch(originals.get('match')!),
    reverse: originals.get('reverse')!,
    sub: stringSub,
    upper: stringUpper,
  };
  lua.lua_pushvalue(L, stringLib);
  for (const [name, fn] of Object.entries(stringFunctions)) {
    setFunction(L, name, withStringLengthCheck(fn, STRING_ARGS_CHECKED[name] ?? []));
  }
  lua.lua_getfield(L, -1, to_luastring('gmatch'));
  lua.lua_setfield(L, -2, to_luastring('gfind'));
  setFunction(L, 'format', stringFormat);
  for (const name of ['dump', 'gsub', 'rep']) setFunction(L, name, stringUnsupported(name));
  lua.lua_pop(L, 1);
  lua.lua_setfield(L, base, to_luastring('string'));

  // math (gopher-lua's list; math.huge is the largest finite float64 there)
  lua.lua_getfield(L, fengariGlobals, to_luastring('math'));
  const fengariMath = lua.lua_gettop(L);
  lua.lua_createtable(L, 0, 32);
  for (const name of MATH_FROM_FENGARI) copyField(L, fengariMath, name);
  for (const [name, fn] of Object.entries(mathExtras)) setFunction(L, name, fn);
  lua.lua_pushnumber(L, Number.MAX_VALUE);
  lua.lua_setfield(L, -2, to_luastring('huge'));
  lua.lua_setfield(L, base, to_luastring('math'));
  lua.lua_pop(L, 1);

  // os: only time and date
  lua.lua_createtable(L, 0, 2);
  for (const [name, fn] of Object.entries(OS_FUNCTIONS)) setFunction(L, name, fn);
  lua.lua_setfield(L, base, to_luastring('os'));

  // package: preload only (loadlib_safe.go), and require() that consults nothing else.
  lua.lua_createtable(L, 0, 4);
  const pkg = lua.lua_gettop(L);
  lua.lua_createtable(L, 0, 1);
  setFunction(L, 'kube', openKube);
  lua.lua_setfield(L, pkg, to_luastring('preload'));
  lua.lua_createtable(L, 0, 1);
  lua.lua_setfield(L, pkg, to_luastring('loaded'));
  lua.lua_createtable(L, 1, 0);
  lua.lua_pushvalue(L, pkg);
  lua.lua_pushcclosure(L, preloadLoader, 1);
  lua.lua_rawseti(L, -2, 1);
  lua.lua_setfield(L, pkg, to_luastring('loaders'));
  setFunction(L, 'loadlib', (Ls) => raise(Ls, 'loadlib is not supported'));
  lua.lua_pushvalue(L, pkg);
  lua.lua_setfield(L, base, to_luastring('package'));
  lua.lua_pushvalue(L, base);
  lua.lua_pushvalue(L, pkg);
  lua.lua_pushcclosure(L, requireModule, 1);
  lua.lua_setfield(L, -2, to_luastring('require'));
  lua.lua_pop(L, 1);

  // Load kube once now so the protected-table snapshot includes it.
  lua.lua_pushvalue(L, base);
  lua.lua_getfield(L, -1, to_luastring('require'));
  lua.lua_pushstring(L, to_luastring('kube'));
  lua.lua_call(L, 1, 1);
  const kubeIndex = lua.lua_gettop(L);

  const protectedRefs: number[] = [];
  const protect = (index: number) => {
    lua.lua_pushvalue(L, index);
    protectedRefs.push(lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX));
  };
  protect(base);
  protect(kubeIndex);
  protect(pkg);
  for (const name of ['string', 'table', 'math', 'os']) {
    lua.lua_getfield(L, base, to_luastring(name));
    protect(lua.lua_gettop(L));
    lua.lua_pop(L, 1);
  }
  for (const name of ['preload', 'loaded', 'loaders']) {
    lua.lua_getfield(L, pkg, to_luastring(name));
    protect(lua.lua_gettop(L));
    lua.lua_pop(L, 1);
  }

  lua.lua_pushvalue(L, base);
  const baseRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);

  // Nothing may reach fengari's own global table any more (chunks get a per-call _ENV).
  lua.lua_settop(L, 0);
  return { baseRef, protectedRefs };
}

/**
 * Pushes a new globals table for one call: a copy of every entry of `base` (the table behind
 * baseRef, as lua_topointer gives it), with `_G` set to the copy itself. gopher-lua keeps the base
 * functions in the globals table itself, so a script that assigns to a global named like one (Karmada's
 * FlinkDeployment script uses `error` as a variable) and later assigns nil removes it, and `pairs(_G)`
 * lists every library; an environment inheriting through `__index` would bring the built-in back instead.
 * The entries are appended to the new table directly, with keys and values as new values: fengari marks
 * a deleted key's value dead in place, so the copy must not share them with `base`.
 */
export function pushFreshGlobals(L: any, base: LuaTable): void {
  lua.lua_createtable(L, 0, 0);
  const globals = tableAt(L, -1);
  for (const [hash, entry] of tableEntries(base)) {
    appendEntry(globals, hash, luaValue(entry.key.type, entry.key.value), luaValue(entry.value.type, entry.value.value));
  }
  pushInterned(L, '_G');
  lua.lua_pushvalue(L, -2);
  lua.lua_rawset(L, -3);
}

const preloadLoader: CFunction = (L) => {
  const name = checkedString(L, 1);
  lua.lua_getfield(L, lua.lua_upvalueindex(1), to_luastring('preload'));
  if (lua.lua_type(L, -1) !== lua.LUA_TTABLE) raise(L, 'package.preload must be a table');
  lua.lua_getfield(L, -1, to_luastring(name));
  if (lua.lua_isnil(L, -1)) lua.lua_pushstring(L, to_luastring(`\n\tno field package.preload['${name}']`));
  return 1;
};

/**
 * gopher-lua's require over package.loaded and package.loaders (which only hold the preload loader).
 * The module name is used as the script's string itself (as Go does), and `loaded` is an interned
 * string: a script calls require("kube") on every call, and getfield made and hashed two new strings.
 */
const requireModule: CFunction = (L) => {
  lauxlib.luaL_checklstring(L, 1); // a number argument becomes a string in place, as in gopher-lua
  lua.lua_settop(L, 1);
  const pkg = lua.lua_upvalueindex(1);
  pushInterned(L, 'loaded');
  lua.lua_gettable(L, pkg); // 2
  lua.lua_pushvalue(L, 1);
  lua.lua_gettable(L, 2); // 3
  if (lua.lua_toboolean(L, 3)) return 1;
  lua.lua_pop(L, 1);
  const name = checkedString(L, 1);
  lua.lua_getfield(L, pkg, to_luastring('preload')); // 3
  if (lua.lua_type(L, 3) !== lua.LUA_TTABLE) raise(L, 'package.preload must be a table');
  lua.lua_pushvalue(L, 1);
  lua.lua_gettable(L, 3); // 4
  if (lua.lua_type(L, 4) !== lua.LUA_TFUNCTION) raise(L, `module ${name} not found:\n\tno field package.preload['${name}']`);
  lua.lua_pushvalue(L, 1);
  lua.lua_call(L, 1, 1); // 4: module value
  if (lua.lua_isnil(L, 4)) {
    lua.lua_pop(L, 1);
    lua.lua_pushboolean(L, true);
  }
  lua.lua_pushvalue(L, 1);
  lua.lua_pushvalue(L, 4);
  lua.lua_settable(L, 2);
  return 1;
};
