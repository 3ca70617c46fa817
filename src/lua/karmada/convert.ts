// JS <-> Lua value conversion with gopher-json semantics (Karmada marshals objects to JSON and
// decodes them with layeh.com/gopher-json; results are encoded back with gopher-json's Encode).
import {
  booleanOf,
  entryKey,
  entryValue,
  firstEntry,
  guardAllocation,
  lazyValueOf,
  lua,
  lauxlib,
  nextEntry,
  numberOf,
  stringBytes,
  stringOf,
  tableAt,
  tableOf,
  typeOf,
  type LuaString,
  type LuaTable,
  type LuaValue,
} from '../engine/index.ts';
import { luaRoundTrip, pushInterned, pushScalar } from './lazy.ts';
import { setOwn } from '../../interpreter/copy.ts';

// ignoreBOM: a string starting with U+FEFF keeps it (TextDecoder drops a leading BOM by default; Go's
// strings are bytes, so Karmada's Lua gives it back).
const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Error raised while encoding a Lua result; the message is the one gopher-json gives. */
export class LuaEncodeError extends Error {}

/**
 * Eager conversion: the reference the lazy conversion (lazy.ts, used for call arguments) is tested
 * against, and the kube module's small results. Pushes a JSON-shaped value. Numbers become floats
 * (gopher-lua has no integers; fengari's are 32-bit), null/undefined become nil: object keys with null vanish and null array elements are skipped, so later
 * elements shift down, as gopher-json's Decode does.
 */
export function pushJson(L: unknown, value: unknown): void {
  if (pushScalar(L, value)) return;
  if (Array.isArray(value)) {
    lauxlib.luaL_checkstack(L, 3, 'object too deep');
    lua.lua_createtable(L, value.length, 0);
    let index = 0;
    for (const item of value) {
      if (item === null || item === undefined) continue;
      pushJson(L, item);
      lua.lua_rawseti(L, -2, ++index);
    }
  } else if (typeof value === 'object') {
    lauxlib.luaL_checkstack(L, 3, 'object too deep');
    const entries = Object.entries(value as Record<string, unknown>);
    lua.lua_createtable(L, 0, entries.length);
    for (const [key, item] of entries) {
      if (item === null || item === undefined) continue;
      pushInterned(L, key);
      pushJson(L, item);
      lua.lua_rawset(L, -3);
    }
  } else {
    throw new TypeError(`cannot pass a ${typeof value} to Lua`);
  }
}

function luaString(L: unknown, index: number): string {
  return utf8.decode(lua.lua_tolstring(L, index));
}

// Decoded keys by their bytes: the bytes belong to one immutable fengari string, and keys are mostly
// the same string objects call after call (interned on push, constants of the script).
const decodedStrings = new WeakMap<Uint8Array, string>();

/**
 * gopher-json Encode of the value at `index`, as a JS value: an empty table is `[]`; a table whose keys
 * are 1..n is an array (any other number key: "cannot encode sparse array"); a table with string keys is
 * an object; mixed keys are "cannot encode mixed or invalid key types"; NaN/Inf, functions and the same
 * table reached twice anywhere in the value are errors. Object keys come out sorted, as Go's
 * json.Marshal of a map writes them.
 */
export function encodeLuaValue(L: unknown, index: number): unknown {
  emptyTablesEncoded = 0;
  startCounting(L);
  try {
    const at = lua.lua_absindex(L, index);
    if (lua.lua_type(L, at) !== lua.LUA_TTABLE) return encodeAt(L, at);
    const encoded = encodeTable(L, tableAt(L, at), new Set(), 1, false);
    return encoded === EMPTY ? emptyArray() : encoded;
  } finally {
    counting = undefined;
  }
}

/** `[]`s (empty tables) in the last encodeLuaValue result: with none, repairEmptyTables has nothing to do. */
let emptyTablesEncoded = 0;
export function lastEncodingHadEmptyTables(): boolean {
  return emptyTablesEncoded > 0;
}

function emptyArray(): unknown[] {
  emptyTablesEncoded++;
  return [];
}

/**
 * repairEmptyTables(encodeLuaValue(L, index), targetIsStruct) with no reference objects (every result
 * but ReviseReplica's and Retain's, and the kube helpers' arguments), in one walk: with no references
 * the repair deletes every empty table below the top, judged on the encoding (a table emptied by those
 * deletions stays, as `{}` or `[]`), and a top-level empty table becomes `{}` for a struct target.
 * The same errors, in the same order, as the encoding alone (children are encoded before being dropped).
 */
export function encodeLuaValueDroppingEmptyTables(L: unknown, index: number, targetIsStruct: boolean): unknown {
  startCounting(L);
  try {
    const at = lua.lua_absindex(L, index);
    if (lua.lua_type(L, at) !== lua.LUA_TTABLE) return encodeAt(L, at);
    const encoded = encodeTable(L, tableAt(L, at), new Set(), 1, true);
    return encoded === EMPTY ? (targetIsStruct ? {} : []) : encoded;
  } finally {
    counting = undefined;
  }
}

/**
 * What the encoders below return for a table with no entries (gopher-json's `[]`): the caller turns it
 * into `[]`, or, when dropping empty tables, leaves the entry out.
 */
const EMPTY = Symbol('empty table');

/** Go's encoding/json refuses to decode deeper nesting ("exceeded max depth"); it also bounds our recursion. */
const MAX_DEPTH = 10_000;

// The memory budget. A result can hold one string many times (1,000 references to a 100 MB string, or
// to a kube helper's long namespace): each Lua string is decoded again, and the worker writes the whole
// result as JSON after the call, which the heap does not show while encoding. So the strings' bytes,
// keys included, are counted as they are encoded, and every 64 KiB the call's budget is asked for the
// Lua strings decoded since (two bytes a character at most) and for the JSON of all of them so far, at
// four bytes a byte: a result of 16 MiB of plain text (the most the worker sends back) takes half the
// default budget, and one of control characters (six characters a byte) a few hundred MB at most.
const DECODED_BYTES_PER_BYTE = 2;
const JSON_BYTES_PER_BYTE = 4;
const BYTES_PER_RESERVATION = 64 * 1024;
/** The Lua state whose value is being encoded, and the string bytes met so far. */
let counting: unknown;
let stringBytesMet = 0;
let decodedSinceReserved = 0;
let countedSinceReserved = 0;

function startCounting(L: unknown): void {
  counting = L;
  stringBytesMet = decodedSinceReserved = countedSinceReserved = 0;
}

/** Counts a string about to be encoded: its bytes, decoded from a Lua string or not (a JS value's). */
function countString(bytes: number, decoded: boolean): void {
  stringBytesMet += bytes;
  if (decoded) decodedSinceReserved += bytes;
  countedSinceReserved += bytes;
  if (countedSinceReserved < BYTES_PER_RESERVATION) return;
  const decoding = decodedSinceReserved;
  countedSinceReserved = decodedSinceReserved = 0;
  guardAllocation(counting, DECODED_BYTES_PER_BYTE * decoding + JSON_BYTES_PER_BYTE * stringBytesMet);
}

/** A value that is not a table, at a stack index. */
function encodeAt(L: unknown, index: number): unknown {
  switch (lua.lua_type(L, index)) {
    case lua.LUA_TNIL:
      return null;
    case lua.LUA_TBOOLEAN:
      return lua.lua_toboolean(L, index);
    case lua.LUA_TNUMBER:
      return finite(lua.lua_tonumber(L, index));
    case lua.LUA_TSTRING:
      countString(lua.lua_rawlen(L, index), true);
      return luaString(L, index);
    default:
      throw new LuaEncodeError(`cannot encode ${typeName(L, lua.lua_type(L, index))} to JSON`);
  }
}

function finite(n: number): number {
  if (!Number.isFinite(n)) throw new LuaEncodeError(`json: unsupported value: ${Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf'}`);
  return n;
}

function typeName(L: unknown, type: number): string {
  return utf8.decode(lua.lua_typename(L, type));
}

// Tables are walked through their entries (engine firstEntry/nextEntry, in insertion order: the keys are
// sorted afterwards) instead of through the stack API: lua_next plus a push and pop per entry were most of
// the encoding.

/** A key's text: decoded once per fengari string object (keys repeat: interned on push, script constants). */
function keyText(key: LuaString): string {
  const bytes = stringBytes(key);
  let text = decodedStrings.get(bytes);
  if (text === undefined) {
    text = utf8.decode(bytes);
    decodedStrings.set(bytes, text);
  }
  return text;
}

/** A table entry's value, as encodeAt would encode it on the stack. */
function encodeValue(L: unknown, value: LuaValue, visited: Set<unknown>, depth: number, drop: boolean): unknown {
  const type = typeOf(value);
  switch (type) {
    case lua.LUA_TBOOLEAN:
      return booleanOf(value);
    case lua.LUA_TNUMBER:
      return finite(numberOf(value));
    case lua.LUA_TSTRING: {
      const bytes = stringBytes(stringOf(value));
      countString(bytes.length, true);
      return utf8.decode(bytes);
    }
    case lua.LUA_TTABLE:
      if (depth >= MAX_DEPTH) throw new LuaEncodeError('exceeded max depth');
      return encodeTable(L, tableOf(value), visited, depth + 1, drop);
    default: // nil is never stored in a table
      throw new LuaEncodeError(`cannot encode ${typeName(L, type)} to JSON`);
  }
}

/** A table's encoding, or EMPTY; `drop`: empty tables below it left out (encodeLuaValueDroppingEmptyTables). */
function encodeTable(L: unknown, table: LuaTable, visited: Set<unknown>, depth: number, drop: boolean): unknown {
  if (visited.has(table)) throw new LuaEncodeError('cannot encode recursively nested tables to JSON');
  visited.add(table);
  // A table the script never touched holds nothing yet: encode its JS object directly.
  const lazy = lazyValueOf(table);
  if (lazy !== undefined) return encodeJsContainer(lazy, depth, drop);

  const numberEntries: Array<[number, unknown]> = [];
  const stringEntries: Array<[string, unknown]> = [];
  let invalidKey = false;
  for (let entry = firstEntry(table); entry !== undefined; entry = nextEntry(entry)) {
    const key = entryKey(entry);
    const keyType = typeOf(key);
    if (keyType === lua.LUA_TNUMBER) {
      numberEntries.push([numberOf(key), encodeValue(L, entryValue(entry), visited, depth, drop)]);
    } else if (keyType === lua.LUA_TSTRING) {
      const text = stringOf(key);
      countString(stringBytes(text).length, true);
      stringEntries.push([keyText(text), encodeValue(L, entryValue(entry), visited, depth, drop)]);
    } else {
      invalidKey = true;
    }
  }
  if (invalidKey || (numberEntries.length > 0 && stringEntries.length > 0)) {
    throw new LuaEncodeError('cannot encode mixed or invalid key types');
  }
  if (stringEntries.length > 0) {
    stringEntries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const object: Record<string, unknown> = {};
    // Two keys can decode to the same text (invalid UTF-8): the later one wins, as an assignment would.
    for (const [key, value] of stringEntries) {
      if (value !== EMPTY) setOwn(object, key, value);
      else if (drop) delete object[key];
      else setOwn(object, key, emptyArray());
    }
    return object;
  }
  if (numberEntries.length === 0) return EMPTY;
  // gopher-lua iterates the array part (keys 1..n) first, so keys must be exactly 1..n.
  numberEntries.sort(([a], [b]) => a - b);
  numberEntries.forEach(([key], i) => {
    if (key !== i + 1) throw new LuaEncodeError('cannot encode sparse array');
  });
  const array: unknown[] = [];
  for (const [, value] of numberEntries) {
    if (value !== EMPTY) array.push(value);
    else if (!drop) array.push(emptyArray());
  }
  return array;
}

/**
 * What pushJson then encodeAt give for a JSON value (never null here), without going through Lua:
 * nulls dropped (array elements shift), empty objects and arrays EMPTY, keys sorted, strings as Lua
 * returns them. It holds no Lua table, so it cannot meet one twice.
 */
function encodeJs(value: unknown, depth: number, drop: boolean): unknown {
  switch (typeof value) {
    case 'string':
      countString(value.length, false);
      return luaRoundTrip(value);
    case 'number':
      if (!Number.isFinite(value)) throw new LuaEncodeError(`json: unsupported value: ${Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf'}`);
      return value;
    case 'boolean':
      return value;
    case 'object':
      if (depth >= MAX_DEPTH) throw new LuaEncodeError('exceeded max depth');
      return encodeJsContainer(value as object, depth + 1, drop);
    default:
      throw new TypeError(`cannot pass a ${typeof value} to Lua`);
  }
}

/** encodeTable for the table pushJson would make of `value`, its entries at `depth`. */
function encodeJsContainer(value: object, depth: number, drop: boolean): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (const item of value) {
      if (item === null || item === undefined) continue;
      out ??= [];
      const encoded = encodeJs(item, depth, drop);
      if (encoded !== EMPTY) out.push(encoded);
      else if (!drop) out.push(emptyArray());
    }
    return out ?? EMPTY;
  }
  const keys = Object.keys(value);
  // Keys that come back from Lua as they are (all but those with a lone surrogate)
  // sort as they are: Array.prototype.sort's default order is the UTF-16 order of `<`.
  for (const key of keys) if (luaRoundTrip(key) !== key) return encodeJsObjectRenamingKeys(value as Record<string, unknown>, keys, depth, drop);
  keys.sort();
  let object: Record<string, unknown> | undefined;
  for (const key of keys) {
    const item = (value as Record<string, unknown>)[key];
    if (item === null || item === undefined) continue;
    object ??= {};
    countString(key.length, false);
    const encoded = encodeJs(item, depth, drop);
    if (encoded !== EMPTY) setOwn(object, key, encoded);
    else if (!drop) setOwn(object, key, emptyArray());
  }
  return object ?? EMPTY;
}

/** encodeJsContainer of an object some of whose keys change text on the way through Lua (two may merge). */
function encodeJsObjectRenamingKeys(value: Record<string, unknown>, keys: string[], depth: number, drop: boolean): unknown {
  const entries: Array<[string, unknown]> = [];
  for (const key of keys) {
    const item = value[key];
    if (item === null || item === undefined) continue;
    countString(key.length, false);
    entries.push([luaRoundTrip(key), encodeJs(item, depth, drop)]);
  }
  if (entries.length === 0) return EMPTY;
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const object: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    if (item !== EMPTY) setOwn(object, key, item);
    else if (drop) delete object[key];
    else setOwn(object, key, emptyArray());
  }
  return object;
}
