// Named accessors over fengari's objects (tables and their entries, the values in them, strings, the global
// state), for lazy conversion, result encoding, per-call globals and the check of library tables after a
// call; outside engine/ the objects are opaque and read or written only through these.
import { lobject, lstring, ltable, lua, types, type Table, type TableEntry, type TString, type TValue } from './fengari.ts';

const GOPHER_MAX_ARRAY_INDEX: number = ltable.GOPHER_MAX_ARRAY_INDEX; // gopher-lua config.go MaxArrayIndex

declare const opaque: unique symbol;
/** A Lua table (ltable.js Table). */
export type LuaTable = { readonly [opaque]: 'LuaTable' };
/** A Lua value held in a table entry (lobject.js TValue). */
export type LuaValue = { readonly [opaque]: 'LuaValue' };
/** A Lua string (lstring.js TString): immutable, its hash cached on it. */
export type LuaString = { readonly [opaque]: 'LuaString' };
/** An entry of a table (its key and value). */
export type LuaEntry = { readonly [opaque]: 'LuaEntry' };
/** What a table held when fingerprinted: the type and payload of the value under each key hash. */
export type TableFingerprint = { readonly [opaque]: 'TableFingerprint' };

const table = (t: LuaTable): Table => t as unknown as Table;
const tvalue = (v: LuaValue): TValue => v as unknown as TValue;
const tstring = (s: LuaString): TString => s as unknown as TString;
const entry = (e: LuaEntry): TableEntry => e as unknown as TableEntry;

// --- tables ---

/** The table at a stack index. */
export function tableAt(L: unknown, index: number): LuaTable {
  return lua.lua_topointer(L, index);
}

export function newTable(L: unknown): LuaTable {
  return ltable.luaH_new(L);
}

export function metatableOf(t: LuaTable): LuaTable | null {
  return table(t).metatable as unknown as LuaTable | null;
}

/** Sets or removes a table's metatable, as lua_setmetatable does, without the stack. */
export function setRawMetatable(t: LuaTable, metatable: LuaTable | null): void {
  table(t).metatable = metatable === null ? null : table(metatable);
}

/**
 * The JS value a lazy table (karmada/lazy.ts) stands for until it is filled, kept on fengari's table object
 * itself (one property, cheaper than a WeakMap entry per table). Cleared by setting undefined, not by
 * deleting the property (which would change the object's shape).
 */
export function lazyValueOf(t: LuaTable): object | undefined {
  return table(t).lazyValue;
}

export function setLazyValue(t: LuaTable, value: object | undefined): void {
  table(t).lazyValue = value;
}

/**
 * Appends an entry as ltable's `add` does (the insertion-ordered list and the Map by key hash), for a key not
 * in a table whose entries have never been removed (so there are no dead keys to forget): one write, where
 * the API takes two pushes and a lua_rawset that hashes, looks up and clears dead keys per entry.
 */
function append(t: Table, hash: unknown, key: TValue, value: TValue): void {
  // As the patched ltable's track_arraylen: an integer key in [1, 2^26) is in gopher-lua's array part.
  if (typeof hash === 'number' && hash > t.gopher_arraylen && hash < GOPHER_MAX_ARRAY_INDEX && Number.isInteger(hash)) t.gopher_arraylen = hash;
  const entry: TableEntry = { key, value, p: t.l, n: undefined };
  if (t.l) t.l.n = entry;
  else t.f = entry;
  t.strong.set(hash, entry);
  t.l = entry;
}

/** t[key] = value for an integer key (a table value holding its own copy; see append for which tables). */
export function appendIntegerEntry(t: LuaTable, key: number, value: LuaValue): void {
  append(table(t), key, new lobject.TValue(types.LUA_TNUMINT, key), tvalue(value));
}

/** t[key] = value for a string key (see append for which tables). */
export function appendStringEntry(t: LuaTable, key: LuaString, value: LuaValue): void {
  append(table(t), lstring.luaS_hashlongstr(key), new lobject.TValue(types.LUA_TLNGSTR, key), tvalue(value));
}

/**
 * Appends every entry of `source`, in its order, to `target`, a new table: keys and values as new value
 * objects, since fengari marks a deleted key's value dead in place and the tables must not share them.
 */
export function copyEntries(source: LuaTable, target: LuaTable): void {
  const to = table(target);
  for (const [hash, entry] of table(source).strong) {
    if (entry.value.type === types.LUA_TNIL) continue; // a deleted key, kept for its place in `next` order
    append(to, hash, new lobject.TValue(entry.key.type, entry.key.value), new lobject.TValue(entry.value.type, entry.value.value));
  }
}

// A table's entries in insertion order (fengari's lua_next order; our `next` puts array keys first):
// `for (let e = firstEntry(t); e !== undefined; e = nextEntry(e))`. A loop, not a callback: the encoder
// recurses through nested tables, and a frame more per level would overflow the stack sooner.

// Deleted keys other than array indices stay in the list with a nil value (the patched ltable's
// delete_entry, for gopher-lua's `next` order): both pass over them.

function live(e: TableEntry | undefined): LuaEntry | undefined {
  while (e !== undefined && e.value.type === types.LUA_TNIL) e = e.n;
  return e as unknown as LuaEntry | undefined;
}

export function firstEntry(t: LuaTable): LuaEntry | undefined {
  return live(table(t).f);
}

export function nextEntry(e: LuaEntry): LuaEntry | undefined {
  return live(entry(e).n);
}

/** gopher-lua's len(tb.array) for the table (ltable.js gopher_arraylen): at least `#t`, more with trailing nil slots. */
export function gopherArrayLength(t: LuaTable): number {
  return table(t).gopher_arraylen;
}

/** Sets it, as table.remove shrinks gopher-lua's array (table.go LTable.Remove). */
export function setGopherArrayLength(t: LuaTable, length: number): void {
  table(t).gopher_arraylen = length;
}

export function entryKey(e: LuaEntry): LuaValue {
  return entry(e).key as unknown as LuaValue;
}

export function entryValue(e: LuaEntry): LuaValue {
  return entry(e).value as unknown as LuaValue;
}

// --- values in table entries ---

/** The value's lua_type (LUA_TNUMBER for integers and floats alike, LUA_TSTRING...). */
export function typeOf(v: LuaValue): number {
  return tvalue(v).type & 0x0f;
}

export function booleanOf(v: LuaValue): boolean {
  return tvalue(v).value;
}

export function numberOf(v: LuaValue): number {
  return tvalue(v).value;
}

export function stringOf(v: LuaValue): LuaString {
  return tvalue(v).value;
}

export function tableOf(v: LuaValue): LuaTable {
  return tvalue(v).value;
}

export function luaBoolean(b: boolean): LuaValue {
  return new lobject.TValue(types.LUA_TBOOLEAN, b);
}

/** A number as lua_pushnumber makes it: always a float. */
export function luaFloat(n: number): LuaValue {
  return new lobject.TValue(types.LUA_TNUMFLT, n);
}

/** A string value (fengari makes every string a long string). */
export function luaStringValue(s: LuaString): LuaValue {
  return new lobject.TValue(types.LUA_TLNGSTR, s);
}

export function luaTableValue(t: LuaTable): LuaValue {
  return new lobject.TValue(types.LUA_TTABLE, t);
}

// --- strings ---

/** A new Lua string of these bytes, which the caller no longer changes (through the memory budget, as every string fengari creates). */
export function newString(L: unknown, bytes: Uint8Array): LuaString {
  return lstring.luaS_bless(L, bytes);
}

export function pushString(L: unknown, s: LuaString): void {
  lobject.pushsvalue2s(L, s);
}

/** A string's bytes: fengari's own, never to be changed. */
export function stringBytes(s: LuaString): Uint8Array {
  return tstring(s).realstring;
}

// --- the global state ---

/** Data kept per Lua state (on fengari's global state, shared by its threads). */
export function stateData(L: any): Record<string, any> {
  return L.l_G;
}

// --- writes since a check ---
// A table's `flags` caches which metamethods it lacks; every write through the VM or lua_rawset resets it
// to 0 (ltable's invalidateTMcache), and only a metatable's is ever read. The tables checked this way
// (library tables) are never metatables, so a value no cache reaches (~0) marks "not written since checked".

const CHECKED = ~0;

export function markChecked(t: LuaTable): void {
  table(t).flags = CHECKED;
}

/** Records a write that bypassed the VM (lua_rawseti does not reset `flags`; table.sort writes that way). */
export function markWritten(t: LuaTable): void {
  ltable.invalidateTMcache(table(t));
}

/**
 * What the table holds, for unchangedSince. Fingerprinted tables (library tables, when first seen and once
 * rebuilt through the API after a call changed them) are given an array part as long as their content
 * (gopher_arraylen): rebuilding clears keys by setting them nil, which cannot shrink it.
 */
interface Fingerprint {
  /** Key hash, value type and payload of each entry. */
  entries: Array<[unknown, number, unknown]>;
  arrayLength: number;
}

export function fingerprint(t: LuaTable): TableFingerprint {
  const entries: Fingerprint['entries'] = [];
  let arrayLength = 0;
  for (const [hash, entry] of table(t).strong) {
    if (entry.value.type === types.LUA_TNIL) continue;
    entries.push([hash, entry.value.type, entry.value.value]);
    if (typeof hash === 'number' && hash > arrayLength && hash < GOPHER_MAX_ARRAY_INDEX && Number.isInteger(hash)) arrayLength = hash;
  }
  table(t).gopher_arraylen = arrayLength;
  const fp: Fingerprint = { entries, arrayLength };
  return fp as unknown as TableFingerprint;
}

/**
 * Whether the table holds what it held when fingerprinted: as many entries, and, unless nothing was written
 * since it was marked checked, the same value under each key.
 */
export function unchangedSince(t: LuaTable, fp: TableFingerprint): boolean {
  const strong = table(t).strong;
  const { entries, arrayLength } = fp as unknown as Fingerprint;
  if (table(t).gopher_arraylen !== arrayLength) return false; // nil slots left at the end, e.g. `math[5] = nil`
  if (table(t).flags === CHECKED && strong.size === entries.length) return true;
  // Deleted keys kept in place with a nil value (the patched ltable's delete_entry) are not entries.
  let live = 0;
  for (const entry of strong.values()) if (entry.value.type !== types.LUA_TNIL) live++;
  if (live !== entries.length) return false;
  for (const [hash, type, value] of entries) {
    const entry = strong.get(hash);
    if (entry === undefined || entry.value.type !== type || entry.value.value !== value) return false;
  }
  return true;
}
