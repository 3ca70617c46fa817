// The only module that loads fengari. It must configure and patch fengari BEFORE any other code
// requires it, because fengari reads FENGARICONF once at load time and several of its modules copy
// internal functions into local bindings when they are first required.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// Lua 5.1 prints integral floats without ".0" (gopher-lua does too). fengari reads this once.
const existingConf = process.env.FENGARICONF ? JSON.parse(process.env.FENGARICONF) : {};
// LUAI_MAXSTACK: fengari's default (1,000,000 slots) lets runaway recursion run for ~2 s before
// "stack overflow"; gopher-lua's default call stack is 256 frames. 20,000 slots still allow recursion
// thousands of frames deep (3,000 measured) and stop a runaway one in ~0.1 s.
process.env.FENGARICONF = JSON.stringify({ ...existingConf, LUA_COMPAT_FLOATSTRING: true, LUAI_MAXSTACK: 20_000 });

/** Called for every Lua string fengari creates (concatenation, string library, API pushes). */
export type StringAllocationObserver = (L: unknown, byteLength: number) => void;
let stringAllocationObserver: StringAllocationObserver | undefined;

/** Installs the observer the runtime uses to enforce its per-call string allocation budget. */
export function observeStringAllocations(observer: StringAllocationObserver | undefined): void {
  stringAllocationObserver = observer;
}

// fengari has no allocator hook (it relies on the JS GC), so a script doing `s = s .. s` in a loop
// would allocate gigabytes between two count-hook calls. lvm.js and lapi.js destructure luaS_bless
// from lstring.js when they are first loaded, so wrapping the export here, before fengari itself is
// required, routes every string creation through our budget check.
const lstring = require('fengari/src/lstring.js');
const originalBless = lstring.luaS_bless;
lstring.luaS_bless = function blessWithBudget(L: unknown, str: Uint8Array) {
  if (stringAllocationObserver !== undefined && str.length > 64) stringAllocationObserver(L, str.length);
  return originalBless(L, str);
};

const fengariModule = require('fengari');
export const lua: any = fengariModule.lua;
export const lauxlib: any = fengariModule.lauxlib;
export const lualib: any = fengariModule.lualib;
export const to_luastring: (s: string, cache?: boolean) => Uint8Array = fengariModule.to_luastring;
export const to_jsstring: (s: Uint8Array) => string = fengariModule.to_jsstring;
/** fengari internals we patch for Lua 5.1 number semantics (see numbers.ts). */
export const lobject: any = require('fengari/src/lobject.js');
export const ldebug: any = require('fengari/src/ldebug.js');
export const lvm: any = require('fengari/src/lvm.js');
export const luaS_bless: (L: unknown, s: Uint8Array) => unknown = lstring.luaS_bless;
