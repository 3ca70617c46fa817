// Loads fengari (Lua 5.3 in JavaScript), configured as scripts for Karmada's gopher-lua (Lua 5.1) need it,
// and the allocation hooks of its install-time patch (patches/fengari+0.1.5.patch, applied by patch-package
// when `npm ci` installs it; docs/decisions/0010). Its internal modules and object shapes are for engine/ only.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// Read once, when fengari loads. Lua 5.1 prints integral floats without ".0" (gopher-lua does too).
// LUAI_MAXSTACK: gopher-lua's call stack is 256 frames; fengari's default (a million slots) lets runaway
// recursion run for seconds before "stack overflow", 20,000 still allows recursion thousands of frames deep.
const existingConf = process.env.FENGARICONF ? JSON.parse(process.env.FENGARICONF) : {};
process.env.FENGARICONF = JSON.stringify({ ...existingConf, LUA_COMPAT_FLOATSTRING: true, LUAI_MAXSTACK: 20_000 });

const fengariModule = require('fengari');
const lstring: any = require('fengari/src/lstring.js');
if (typeof lstring.luaS_guardalloc !== 'function' || lstring.luaS_allocation === undefined) {
  throw new Error('node_modules/fengari is not patched (patches/fengari+0.1.5.patch): run `npm ci`');
}

// --- fengari's public API ---

export const lua: any = fengariModule.lua;
export const lauxlib: any = fengariModule.lauxlib;
export const lualib: any = fengariModule.lualib;
export const to_luastring: (s: string, cache?: boolean) => Uint8Array = fengariModule.to_luastring;
export const to_jsstring: (s: Uint8Array) => string = fengariModule.to_jsstring;

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

// --- fengari's internals, for engine/'s accessors (tables.ts) and replacements (gopher-tables.ts, numbers.ts) ---

export { lstring };
export const lobject: any = require('fengari/src/lobject.js');
export const lvm: any = require('fengari/src/lvm.js');
export const ltable: any = require('fengari/src/ltable.js');
export const types: any = require('fengari/src/defs.js').constant_types;
if (typeof ltable.GOPHER_MAX_ARRAY_INDEX !== 'number' || typeof lobject.luai_numpow !== 'function') {
  throw new Error('node_modules/fengari carries an older patch (patches/fengari+0.1.5.patch): run `npm ci`');
}

/** A Lua value (lobject.js TValue): a type tag with variant bits, and its payload. */
export interface TValue {
  type: number;
  value: any;
}

/**
 * A table entry (ltable.js): a table's live entries form a list in insertion order (`n`, `p`) and are
 * keyed in `strong` by their key's hash; a deleted entry is unlinked and its key marked dead.
 */
export interface TableEntry {
  key: TValue;
  value: TValue;
  n?: TableEntry;
  p?: TableEntry;
}

/** A table (ltable.js Table), with the JS value a lazy table stands for until it is filled (tables.ts). */
export interface Table {
  strong: Map<unknown, TableEntry>;
  /** First and last entries of the list; fengari only ever appends at `l`. */
  f?: TableEntry;
  l?: TableEntry;
  metatable: Table | null;
  /** Which metamethods the table lacks, cached when it is a metatable; 0 after any write through the VM or lua_rawset. */
  flags: number;
  lazyValue?: object;
  /** The patch's length of gopher-lua's array part (ltable.js track_arraylen); table.remove shrinks it. */
  gopher_arraylen: number;
}

/** A Lua string (lstring.js TString): its bytes, and its hash once computed. */
export interface TString {
  realstring: Uint8Array;
}

/** lobject.js LUA_TDEADKEY: the key of an entry removed from its table. */
export const DEAD_KEY = 10;
