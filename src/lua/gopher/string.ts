// gopher-lua's string library (stringlib.go) as Karmada runs it (string_safe.go: inputs of at most 1,000,000
// bytes): sub, byte, char, upper/lower and format, with Go's index rules and case mapping; the pattern
// functions are string-patterns.ts.
import { decodeRune, encodeRune } from '../../go/utf8.ts';
import { guardAllocation, lua, lauxlib, to_luastring } from '../engine/index.ts';
import { asByteString, byteString, goDecrement, goIntArg, pushByteString, pushBytes, raise, typeName, type CFunction } from './args.ts';
import { formatArgumentCount, luaStringFormat, type FormatArg } from './string-format.ts';

// --- Karmada's limit on string arguments (string_safe.go) ---

const MAX_STRING_PARAM_LENGTH = 1_000_000;
/** The arguments each function checks against the limit (string_safe.go); format checks its format itself. */
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

function checkStringLength(L: any, index: number): void {
  if (lua.lua_type(L, index) === lua.LUA_TSTRING && lua.lua_rawlen(L, index) > MAX_STRING_PARAM_LENGTH) {
    raise(
      L,
      `string length ${lua.lua_rawlen(L, index)} exceeds the maximum allowed input string length ${MAX_STRING_PARAM_LENGTH} in Karmada lua string lib, please check your lua script.`,
    );
  }
}

/** `fn`, string function `name`, raising Karmada's error first when an argument it checks is too long. */
export function withLengthLimit(name: string, fn: CFunction): CFunction {
  const args = STRING_ARGS_CHECKED[name] ?? [];
  return (L) => {
    for (const arg of args) checkStringLength(L, arg);
    return fn(L);
  };
}

/** stringlib.go luaIndex2StringIndex: a Lua position to a 0-based byte offset. */
export function stringIndex(length: number, position: number, start: boolean): number {
  let i = position;
  if (start && i !== 0) i = goDecrement(i);
  if (i < 0) i = length + i + 1;
  i = Math.max(0, i);
  if (!start && i > length) i = length;
  return i;
}

/** strSub: start and end as luaIndex2StringIndex gives them; empty when start is past the end. */
export const stringSub: CFunction = (L) => {
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
export const stringByte: CFunction = (L) => {
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
export const stringChar: CFunction = (L) => {
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

export const stringLower: CFunction = (L) => {
  pushBytes(L, goMapCase(L, lauxlib.luaL_checklstring(L, 1), false));
  return 1;
};

export const stringUpper: CFunction = (L) => {
  pushBytes(L, goMapCase(L, lauxlib.luaL_checklstring(L, 1), true));
  return 1;
};

/** The argument at `index` as string-format.ts takes it (strings as byte strings, as Go sees them). */
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

const FORMAT_BYTES_PER_RESERVATION = 64 * 1024;

/** gopher-lua strFormat: fmt.Sprintf over the Lua values, given as many arguments as formatArgumentCount says. */
export const stringFormat: CFunction = (L) => {
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
