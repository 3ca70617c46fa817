// Arguments of the library functions written here, read as gopher-lua reads them (auxlib.go: CheckInt,
// OptString, TypeError...), its errors raised, and Lua strings to and from JS: the one home of these helpers
// for gopher/ and karmada/kube.ts. Integers are Go ints converted from float64 (on amd64).
import { goIntOf } from '../../go/math.ts';
import { guardAllocation, lua, lauxlib, newString, pushString, to_luastring } from '../engine/index.ts';

/** A library function: reads its arguments from L's stack, pushes its results, returns how many. */
export type CFunction = (L: any) => number;

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** The Lua string (or number) at `index` as JS text, invalid UTF-8 replaced. */
export function luaToJsString(L: any, index: number): string {
  return utf8.decode(lua.lua_tolstring(L, index));
}

/** luaL_checkstring (numbers are converted in place), as a JS string. */
export function checkedString(L: any, index: number): string {
  return utf8.decode(lauxlib.luaL_checklstring(L, index));
}

/** The type name of the value at `index` ("no value" for none). */
export function typeName(L: any, index: number): string {
  return utf8.decode(lua.lua_typename(L, lua.lua_type(L, index)));
}

/** Raises `message` as a Lua error at the calling script's line (luaL_error, no format directives). */
export function raise(L: any, message: string): never {
  lauxlib.luaL_error(L, to_luastring(message.replace(/%/g, '%%')));
  throw new Error('unreachable');
}

/** auxlib.go TypeError: "bad argument #n to 'f' (number expected, got string)", fengari naming the function. */
export function typeError(L: any, index: number, expected: string): never {
  const got = lua.lua_type(L, index) === lua.LUA_TNONE ? 'nil' : typeName(L, index);
  lauxlib.luaL_argerror(L, index, to_luastring(`${expected} expected, got ${got}`));
  throw new Error('unreachable');
}

/** TypeError worded as gopher-lua's for a Go function named `fn`: "bad argument #n to fn (string expected, got table)". */
export function typeErrorIn(L: any, index: number, fn: string, expected: string): never {
  return raise(L, `bad argument #${index} to ${fn} (${expected} expected, got ${typeName(L, index)})`);
}

/** CheckInt / OptInt: a number (a numeric string is a type error), converted as Go's int(float64) does on amd64. */
export function goIntArg(L: any, index: number, fallback?: number): number {
  const type = lua.lua_type(L, index);
  if (fallback !== undefined && (type === lua.LUA_TNIL || type === lua.LUA_TNONE)) return fallback;
  if (type !== lua.LUA_TNUMBER) typeError(L, index, 'number');
  return goIntOf(lua.lua_tonumber(L, index));
}

/** OptString: nil gives the default; anything but a string (a number too) is a type error. Its bytes. */
export function goOptString(L: any, index: number, fallback: Uint8Array): Uint8Array {
  const type = lua.lua_type(L, index);
  if (type === lua.LUA_TNIL || type === lua.LUA_TNONE) return fallback;
  if (type !== lua.LUA_TSTRING) typeError(L, index, 'string');
  return lua.lua_tolstring(L, index);
}

const MIN_INT = -(2 ** 63);
const MAX_INT = 2 ** 63 - 1;
/** Go's i - 1 on a 64-bit int: the smallest int wraps to the largest. */
export const goDecrement = (i: number): number => (i === MIN_INT ? MAX_INT : i - 1);

// --- strings as Go sees them: byte strings, one JS character per byte ---

/** A Lua string argument as a byte string. */
export function byteString(L: any, index: number): string {
  return asByteString(L, lua.lua_tolstring(L, index) as Uint8Array);
}

export function asByteString(L: any, bytes: Uint8Array): string {
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
export function pushByteString(L: any, s: string): void {
  guardAllocation(L, 2 * s.length);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  pushBytes(L, bytes);
}

/** Pushes bytes the caller made (and no longer changes) as a Lua string, without copying them. */
export function pushBytes(L: any, bytes: Uint8Array): void {
  pushString(L, newString(L, bytes));
}
