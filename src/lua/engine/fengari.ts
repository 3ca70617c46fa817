// The one module that loads fengari and changes what it does, so that scripts behave as on Karmada's
// gopher-lua (Lua 5.1): its configuration, which fengari reads once at load time, the functions replaced
// in its modules (each says which gopher-lua behaviour it reproduces), the allocation hooks, and the
// internals other modules read (table entries, for lazy conversion and for restoring library tables after
// a call). Nothing here rewrites fengari's source: the one change to it is patches/fengari+0.1.5.patch,
// applied by patch-package when `npm ci` installs it (docs/decisions/0010).
import { createRequire } from 'node:module';
import { goParseNumber } from '../gopher/to-number.ts';
import { luaNumberToString } from '../gopher/numbers.ts';

const require = createRequire(import.meta.url);

// Lua 5.1 prints integral floats without ".0" (gopher-lua does too). LUAI_MAXSTACK: gopher-lua's call
// stack is 256 frames; fengari's default (a million slots) lets runaway recursion run for seconds before
// "stack overflow", 20,000 still allows recursion thousands of frames deep.
const existingConf = process.env.FENGARICONF ? JSON.parse(process.env.FENGARICONF) : {};
process.env.FENGARICONF = JSON.stringify({ ...existingConf, LUA_COMPAT_FLOATSTRING: true, LUAI_MAXSTACK: 20_000 });

const fengariModule = require('fengari');
const lstring = require('fengari/src/lstring.js');
if (typeof lstring.luaS_guardalloc !== 'function' || lstring.luaS_allocation === undefined) {
  throw new Error('node_modules/fengari is not patched (patches/fengari+0.1.5.patch): run `npm ci`');
}

// --- allocation hooks (the patch's luaS_allocation in lstring.js): fengari has no allocator that can
// fail, so one operation of a script could grow V8's heap past any budget, and a V8 out-of-memory in a
// worker thread ends the whole process ---

/** Called for every Lua string longer than 64 bytes that fengari creates (concatenation, string library, API pushes). */
export type StringAllocationObserver = (L: unknown, byteLength: number) => void;

/**
 * Installs the observer the runtime uses to enforce its per-call memory budget. It is called after the
 * string exists, from places where raising a Lua error is not safe: it must not raise.
 */
export function observeStringAllocations(observer: StringAllocationObserver | undefined): void {
  lstring.luaS_allocation.observer = observer ?? null;
}

/**
 * Called just before fengari allocates a string or buffer of `bytes` bytes whose size a script controls:
 * the result of `..` (lvm.js luaV_concat), a luaL_Buffer growing or copied into its result string
 * (lauxlib.js luaL_prepbuffsize and luaL_pushresult: string.rep, char, format, gsub, table.concat...),
 * string.reverse/lower/upper (lstrlib.js, twice the length: the result and its copy). It may raise a Lua
 * error (lua_error, luaL_error): these are the places where C Lua raises its memory errors, and the stack
 * is consistent at each. It is called as a hook is, with LUA_MINSTACK free slots above the stack's top
 * (in luaV_concat that top can be the frame's), and the top is restored when it returns. Throwing
 * anything else is a JS error escaping the VM.
 */
export type AllocationGuard = (L: unknown, bytes: number) => void;

/** Installs the allocation guard, one for the thread as the observer (undefined: none, fengari allocates as it always did). */
export function setAllocationGuard(guard: AllocationGuard | undefined): void {
  lstring.luaS_allocation.guard = guard ?? null;
}

/**
 * Calls the installed guard, if any, for an allocation of `bytes` that code outside fengari is about to
 * make for a script (a library function written here, whose result fengari then copies into a string).
 */
export function guardAllocation(L: unknown, bytes: number): void {
  lstring.luaS_guardalloc(L, bytes);
}

export const lua: any = fengariModule.lua;
export const lauxlib: any = fengariModule.lauxlib;
export const lualib: any = fengariModule.lualib;
export const to_luastring: (s: string, cache?: boolean) => Uint8Array = fengariModule.to_luastring;
export const to_jsstring: (s: Uint8Array) => string = fengariModule.to_jsstring;
const lobject: any = require('fengari/src/lobject.js');
const lvm: any = require('fengari/src/lvm.js');
const ltable: any = require('fengari/src/ltable.js');
const types: any = require('fengari/src/defs.js').constant_types;

// --- fengari's internals, for lazy conversion (lazy.ts), result encoding (convert.ts), per-call globals
// (sandbox.ts) and the check of library tables after a call (state.ts): typed here, used nowhere else ---

/** A Lua value (lobject.js TValue): a type tag with variant bits, and its payload. */
export interface LuaValue {
  type: number;
  value: any;
}
/** A table entry (ltable.js): entries form a list in insertion order, and are keyed in `strong` by their key's hash. */
export interface LuaTableEntry {
  key: LuaValue;
  value: LuaValue;
  n?: LuaTableEntry;
  p?: LuaTableEntry;
}
/** A table (ltable.js Table), with the JS value lazy.ts keeps on a table it has not filled yet. */
export interface LuaTable {
  strong: Map<unknown, LuaTableEntry>;
  f?: LuaTableEntry;
  l?: LuaTableEntry;
  metatable: LuaTable | null;
  flags: number;
  lazyValue?: object;
}
/** A Lua string (lstring.js TString). */
export interface LuaString {
  realstring: Uint8Array;
}

/** Type tags of the values lazy conversion creates (fengari makes every string a long string). */
export const VALUE_TYPE = {
  boolean: types.LUA_TBOOLEAN as number,
  float: types.LUA_TNUMFLT as number,
  integer: types.LUA_TNUMINT as number,
  string: types.LUA_TLNGSTR as number,
  table: types.LUA_TTABLE as number,
};

export function luaValue(type: number, value: unknown): LuaValue {
  return new lobject.TValue(type, value);
}

/** The table at a stack index. */
export function tableAt(L: unknown, index: number): LuaTable {
  return lua.lua_topointer(L, index);
}

export function newTable(L: unknown): LuaTable {
  return ltable.luaH_new(L);
}

/**
 * Appends an entry as ltable's `add` does (insertion-ordered list and hash Map), for a key not in the
 * table, whose entries have never been removed (so there are no dead keys to forget).
 */
export function appendEntry(table: LuaTable, hash: unknown, key: LuaValue, value: LuaValue): void {
  const entry: LuaTableEntry = { key, value, p: table.l, n: undefined };
  if (table.l) table.l.n = entry;
  else table.f = entry;
  table.strong.set(hash, entry);
  table.l = entry;
}

/** A table's entries by key hash. */
export function tableEntries(table: LuaTable): Map<unknown, LuaTableEntry> {
  return table.strong;
}

/** A new Lua string (through the memory budget, as every string fengari creates). */
export function newString(L: unknown, bytes: Uint8Array): LuaString {
  return lstring.luaS_bless(L, bytes);
}

/** A string's table hash (cached on the string). */
export function stringHash(s: LuaString): unknown {
  return lstring.luaS_hashlongstr(s);
}

export function pushString(L: unknown, s: LuaString): void {
  lobject.pushsvalue2s(L, s);
}

/** Data kept per Lua state (on fengari's global state, shared by its threads). */
export function stateData(L: any): Record<string, any> {
  return L.l_G;
}

// A table's `flags` caches which metamethods it lacks; every write through the VM or lua_rawset resets it
// to 0 (ltable's invalidateTMcache), and only a metatable's is ever read. Library tables are never
// metatables, so a value no cache reaches (~0) marks "not written since checked".
const CHECKED = ~0;

export function markChecked(table: LuaTable): void {
  table.flags = CHECKED;
}

export function writtenSinceChecked(table: LuaTable): boolean {
  return table.flags !== CHECKED;
}

/** Records a write that bypassed the VM (lua_rawseti does not reset `flags`; table.sort writes that way). */
export function markWritten(table: LuaTable): void {
  ltable.invalidateTMcache(table);
}

// --- gopher-lua behaviour: lvm's OP_LEN and lapi call these through their modules' exports ---

ltable.luaH_getn = gopherLuaTableLength;

// Numbers: gopher-lua has only float64 numbers. Every numeral (source literals, tonumber, string
// coercion) becomes a float through gopher-lua's parseNumber, so integer arithmetic never wraps at 32
// bits; fengari's callers expect the string's length + 1 on success, 0 on failure.
const latin1 = new TextDecoder('latin1');
lobject.luaO_str2num = function str2numLikeGopherLua(s: Uint8Array, o: any): number {
  const value = goParseNumber(latin1.decode(s));
  if (value === undefined) return 0;
  o.setfltvalue(value);
  return s.length + 1;
};
// Library functions read integer arguments through lvm.tointeger. gopher-lua's CheckInt truncates any
// number (`string.sub(s, 1, #s / 2)` works there) where Lua 5.3 raises "number has no integer
// representation": truncate, and clamp to fengari's 32-bit integers.
const numberOf = lvm.tonumber;
lvm.tointeger = function truncatingToInteger(o: any): number | false {
  if (o.ttisinteger()) return o.value;
  const n = numberOf(o);
  if (n === false) return false;
  if (Number.isNaN(n)) return -(2 ** 31);
  return Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, Math.trunc(n)));
};
// Numbers print as gopher-lua prints them (Go's fmt), in tostring, `..` and string coercion.
lobject.luaO_tostring = function tostringLikeGopherLua(L: unknown, obj: any): void {
  const text = obj.ttisinteger() ? String(obj.value) : luaNumberToString(obj.value);
  obj.setsvalue(newString(L, to_luastring(text)));
};

/** fengari's table internals that the length and the traversal below read (ltable.js Table and its entry list). */
interface TableEntry {
  key: { type: number; value: unknown };
  value: unknown;
  n?: TableEntry;
  p?: TableEntry;
}
interface FengariTable {
  strong: Map<unknown, TableEntry>;
  f?: TableEntry;
  l?: TableEntry;
}
interface LengthCache {
  size: number;
  last?: TableEntry;
  lastPrev?: TableEntry;
  length: number;
}
let lengthCache = new WeakMap<FengariTable, LengthCache>();
const DEAD_KEY = 10; // lobject.js LUA_TDEADKEY: the key of an entry removed from the table
const NUMBER_TAG = 3; // defs.js LUA_TNUMBER (integer and float keys share it in the low bits)
const GOPHER_MAX_ARRAY_INDEX = 67108864; // gopher-lua config.go MaxArrayIndex

/**
 * `#t` as Karmada's VM computes it: gopher-lua's LTable.Len (table.go), the index of the last non-nil slot
 * of its array part, which holds every positive integer key below MaxArrayIndex. So it is the largest such
 * key whose value is non-nil (0 if none): `#{nil, nil, 3}` is 3 and `t[5] = 1` on an empty table makes
 * `#t` 5, where fengari's border search (the ltable.luaH_getn this replaces; lvm's OP_LEN and lapi's
 * lua_rawlen call it through the module object) may return any border. The length is cached per table,
 * for the call (forgetTableCaches), with the table's size and last entry: entries appended since (fengari
 * only appends) are scanned, a deleted largest key is searched downwards, anything else scans the table,
 * so `t[#t + 1] = v` loops and pops stay linear.
 */
function gopherLuaTableLength(t: FengariTable): number {
  const size = t.strong.size;
  const cached = lengthCache.get(t);
  if (cached !== undefined && cached.size === size && cached.last === t.l) return cached.length;
  let length = -1;
  if (cached !== undefined) {
    // Entries after an anchor that was the table's last (or last but one) entry when cached are new.
    const anchor =
      cached.last === undefined
        ? null
        : cached.last.key.type !== DEAD_KEY
          ? cached.last
          : cached.lastPrev !== undefined && cached.lastPrev.key.type !== DEAD_KEY
            ? cached.lastPrev
            : undefined;
    if (anchor !== undefined) {
      let largestNew = 0;
      for (let e = anchor === null ? t.f : anchor.n; e !== undefined; e = e.n) {
        const k = e.key.value;
        if ((e.key.type & 0x0f) === NUMBER_TAG && typeof k === 'number' && k > largestNew && k < GOPHER_MAX_ARRAY_INDEX && Number.isInteger(k)) largestNew = k;
      }
      // Keys present when cached were at most cached.length: find the largest one still present.
      let old = cached.length;
      for (let steps = 0; old > 0 && !t.strong.has(old); old--)
        if (++steps > size) {
          old = -1;
          break;
        }
      if (old >= 0) length = Math.max(largestNew, old);
    }
  }
  if (length < 0) {
    length = 0;
    for (const k of t.strong.keys()) {
      if (typeof k === 'number' && k > length && k < GOPHER_MAX_ARRAY_INDEX && Number.isInteger(k)) length = k;
    }
  }
  const entry = cached ?? { size, length };
  entry.size = size;
  entry.last = t.l;
  entry.lastPrev = t.l?.p;
  entry.length = length;
  if (cached === undefined) lengthCache.set(t, entry);
  return length;
}

// --- pairs/next order: gopher-lua's LTable.Next (table.go) walks its array part first, which holds every
// positive integer key below MaxArrayIndex, ascending; then its other keys in insertion order. fengari
// keeps one insertion-ordered list, so `t[2] = "b"; t[1] = "a"` or `t.x = 1; t[1] = "a"` iterated in
// another order. lapi's lua_next calls ltable.luaH_next through the module object; the one below walks
// the integer keys first, then fengari's list without them.

interface ArrayKeys {
  /** The table's last entry when the keys were collected. */
  last?: TableEntry;
  /** Its positive integer keys below MaxArrayIndex, ascending (some may have been deleted since). */
  keys: number[];
}
let arrayKeysCache = new WeakMap<FengariTable, ArrayKeys>();
const fengariNext: (L: any, table: FengariTable, keyIndex: number) => boolean = ltable.luaH_next;

function isArrayKey(key: unknown): key is number {
  return typeof key === 'number' && key >= 1 && key < GOPHER_MAX_ARRAY_INDEX && Number.isInteger(key);
}

/** isArrayKey for a key on the stack, which must be a number (a light userdata's value can be one too). */
function isArrayKeyValue(key: { type: number; value: unknown }): boolean {
  return (key.type & 0x0f) === NUMBER_TAG && isArrayKey(key.value);
}

/**
 * The keys gopher-lua would hold in its array part. fengari only appends entries (at `l`), so while the
 * last entry is the one seen when they were collected nothing was added since: the list is still a
 * superset (keys deleted since are skipped where it is read), and one traversal sorts once.
 */
function arrayKeysOf(table: FengariTable): number[] {
  const cached = arrayKeysCache.get(table);
  if (cached !== undefined && cached.last === table.l) return cached.keys;
  const keys: number[] = [];
  let ascending = true; // arrays are mostly filled in order: no sort then
  for (const hash of table.strong.keys()) {
    if (!isArrayKey(hash)) continue; // an integer key's hash is itself
    if (keys.length > 0 && hash < keys[keys.length - 1]!) ascending = false;
    keys.push(hash);
  }
  if (!ascending) keys.sort((a, b) => a - b);
  arrayKeysCache.set(table, { last: table.l, keys });
  return keys;
}

/** fengari's next from the key at keyIndex, passing over array keys (already walked). */
function nextOtherKey(L: any, table: FengariTable, keyIndex: number): boolean {
  while (fengariNext(L, table, keyIndex)) if (!isArrayKeyValue(L.stack[keyIndex])) return true;
  return false;
}

ltable.luaH_next = function nextLikeGopherLua(L: any, table: FengariTable, keyIndex: number): boolean {
  const key = L.stack[keyIndex];
  if (key.type !== types.LUA_TNIL && !isArrayKeyValue(key)) return nextOtherKey(L, table, keyIndex);
  const keys = arrayKeysOf(table);
  // From the first array key, or the first above the current one (which may have been deleted meanwhile).
  let from = 0;
  if (key.type !== types.LUA_TNIL) {
    for (let high = keys.length; from < high;) {
      const middle = (from + high) >>> 1;
      if (keys[middle]! <= key.value) from = middle + 1;
      else high = middle;
    }
  }
  for (let i = from; i < keys.length; i++) {
    const entry = table.strong.get(keys[i]);
    if (entry === undefined) continue;
    lobject.setobj2s(L, keyIndex, entry.key);
    lobject.setobj2s(L, keyIndex + 1, entry.value);
    return true;
  }
  lobject.setobj2s(L, keyIndex, lobject.luaO_nilobject);
  return nextOtherKey(L, table, keyIndex);
};

/**
 * Drops the caches of `#` and `next` (state.ts calls it after every call). Their values hold table entries,
 * whose links reach the whole table and everything in it, and V8's young-generation collection keeps the
 * values of a WeakMap in the old generation alive whatever became of their keys: kept for the process, the
 * caches had every call's tables promoted (0.8-2 MB a scavenge, scavenges of 3-6 ms; bench/README, Memory).
 */
export function forgetTableCaches(): void {
  lengthCache = new WeakMap();
  arrayKeysCache = new WeakMap();
}
