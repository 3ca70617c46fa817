// The only module that loads fengari. It must configure and patch fengari BEFORE any other code
// requires it, because fengari reads FENGARICONF once at load time and several of its modules copy
// internal functions into local bindings when they are first required.
import { createRequire, Module } from 'node:module';
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';

const require = createRequire(import.meta.url);

// Lua 5.1 prints integral floats without ".0" (gopher-lua does too). fengari reads this once.
const existingConf = process.env.FENGARICONF ? JSON.parse(process.env.FENGARICONF) : {};
// LUAI_MAXSTACK: fengari's default (1,000,000 slots) lets runaway recursion run for ~2 s before
// "stack overflow"; gopher-lua's default call stack is 256 frames. 20,000 slots still allow recursion
// thousands of frames deep (3,000 measured) and stop a runaway one in ~0.1 s.
process.env.FENGARICONF = JSON.stringify({ ...existingConf, LUA_COMPAT_FLOATSTRING: true, LUAI_MAXSTACK: 20_000 });

// Rewrites of fengari's sources as they are compiled (for the duration of the require below), each
// leaving fengari's observable behaviour unchanged. Two V8 slow paths in its hottest code:
// * stack slots above the top are freed with `delete L.stack[i]` (after every call, pop and settop),
//   a runtime call in V8. The stack array is holey from the start (its length is set to the stack
//   size) and nothing in fengari tests slots with `in` or hasOwnProperty, so storing undefined leaves
//   the same array; it was the top self-time entry of call-heavy scripts (each `ipairs` step is a call).
// * every new key of every table ran `t.dead_strong.clear()`, which allocates a new backing store even
//   for an empty Map (~75 ns; measured); the tables we and scripts fill almost never have dead keys.
// And one step of `for ... in ipairs(t)` done inline by the VM (IPAIRS_STEP below).
// The counts (a test compares them with the installed sources) tell a fengari update apart.
interface SourceRewrite { file: string; pattern: RegExp; replace: (match: string, ...groups: string[]) => string; count: number }

// `for i, v in ipairs(t)` calls ipairs' iterator through OP_TFORCALL on every step: a C-function call
// that copies three slots, shrinks and regrows the stack (a new TValue per slot) and moves the results,
// for one table read. Status aggregation loops over every member's status this way, several times per
// item (~30% of a 50-cluster AggregateStatus; measured). The VM now does that step itself when the
// iterator is fengari's own ipairsaux and the table has no metatable: ipairsaux's result (i+1 and
// t[i+1], or a single nil to end the loop) written into the call-result slots, padded with nils to the
// loop's variable count as luaD_call pads them. Anything else (a lazy table still carrying its
// metatable, a non-table, another iterator) takes fengari's call as before.
const IPAIRS_STEP = `
let ipairsaux = null;
module.exports.setIpairsAux = (f) => { ipairsaux = f; };
const ipairsStep = function(L, ra, cb, nresults) {
    const f = L.stack[ra], t = L.stack[ra + 1], control = L.stack[ra + 2];
    if (f.value !== ipairsaux || f.type !== LUA_TLCF || t.type !== LUA_TTABLE || t.value.metatable !== null ||
        control.type !== LUA_TNUMINT || cb + nresults > L.top) return false;
    const n = (control.value + 1) | 0;
    const v = ltable.luaH_getint(t.value, n);
    let k = 0;
    if (!v.ttisnil()) {
        L.stack[cb].setivalue(n);
        k = 1;
        if (nresults > 1) { L.stack[cb + 1].setfrom(v); k = 2; }
    }
    for (; k < nresults; k++) L.stack[cb + k].setnilvalue();
    return true;
};
`;
const FENGARI_SRC = dirname(require.resolve('fengari/src/ldo.js'));
export const fengariRewrites: SourceRewrite[] = [
  { file: '*', pattern: /delete ((?:L|from)\.stack\[[^\]]+\]);/g, replace: (_m, slot) => `${slot} = void 0;`, count: 0 },
  { file: 'ltable.js', pattern: /^(\s*)t\.dead_strong\.clear\(\);$/gm, replace: (_m, indent) => `${indent}if (t.dead_strong.size !== 0) t.dead_strong.clear();`, count: 0 },
  // ipairs: the iterator exported, the VM's step definition, and OP_TFORCALL's call made conditional.
  { file: 'lbaselib.js', pattern: /^module\.exports\.luaopen_base = luaopen_base;$/m, replace: (m) => `${m}\nmodule.exports.ipairsaux = ipairsaux;`, count: 0 },
  { file: 'lvm.js', pattern: /^module\.exports\.luaV_execute /m, replace: (m) => `${IPAIRS_STEP}\n${m}`, count: 0 },
  {
    file: 'lvm.js',
    pattern: /(let cb = ra \+ 3; \/\* call base \*\/)(\n\s*)(lobject\.setobjs2s\(L, cb\+2, ra\+2\);[^]*?ldo\.luaD_call\(L, cb, i\.C\);)/,
    replace: (_m, declaration, indent, call) => `${declaration}${indent}if (!ipairsStep(L, ra, cb, i.C)) {${indent}${call}${indent}}`,
    count: 0,
  },
];
const ModuleClass = Module as any;
const originalCompile = ModuleClass.prototype._compile;
ModuleClass.prototype._compile = function compileFengari(this: unknown, content: string, filename: string) {
  if (dirname(filename) === FENGARI_SRC) {
    for (const rewrite of fengariRewrites) {
      if (rewrite.file !== '*' && rewrite.file !== basename(filename)) continue;
      content = content.replace(rewrite.pattern, (...args: any[]) => {
        rewrite.count++;
        return rewrite.replace(...(args as [string, ...string[]]));
      });
    }
  }
  return originalCompile.call(this, content, filename);
};

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

/**
 * Step budget of fengari's Lua pattern matcher. Matching runs in JS (string.find/match/gmatch), where
 * the count hook never fires, and patterns like ".-.-.-x" over a long subject backtrack for minutes.
 * lstrlib.js keeps `match` private, so its source is loaded here with one line added at the top of
 * `match`: every `left` steps it calls `refill(L)`, which checks the call's deadline and may raise a
 * Lua error (as the matcher itself does for malformed patterns). Undefined if fengari's source changed.
 */
export interface PatternSteps { left: number; refill: (L: unknown) => void }
const MATCH_HEADER = 'const match = function(ms, s, p) {';
function loadPatchedStringLibrary(): { patternSteps: PatternSteps; luaopen_string: unknown } | undefined {
  const path = require.resolve('fengari/src/lstrlib.js');
  const source = readFileSync(path, 'utf8');
  if (!source.includes(MATCH_HEADER)) return undefined;
  const patched =
    source.replace(MATCH_HEADER, `${MATCH_HEADER} if (--patternSteps.left <= 0) patternSteps.refill(ms.L);`) +
    '\nconst patternSteps = { left: Infinity, refill() { this.left = Infinity; } };\nmodule.exports.patternSteps = patternSteps;\n';
  const compiled = new ModuleClass(path);
  compiled.filename = path;
  compiled.paths = ModuleClass._nodeModulePaths(dirname(path));
  compiled._compile(patched, path);
  compiled.loaded = true;
  return compiled.exports;
}
// Compiled as a separate module instance (fengari's own lstrlib.js loads too, through lualib.js, and
// stays unused): it shares every other fengari module through the require cache.
const patchedStringLibrary = loadPatchedStringLibrary();
export const patternSteps: PatternSteps | undefined = patchedStringLibrary?.patternSteps;

const fengariModule = require('fengari');
require('fengari/src/lvm.js').setIpairsAux(require('fengari/src/lbaselib.js').ipairsaux);
if (patchedStringLibrary) fengariModule.lualib.luaopen_string = patchedStringLibrary.luaopen_string;
export const lua: any = fengariModule.lua;
export const lauxlib: any = fengariModule.lauxlib;
export const lualib: any = fengariModule.lualib;
export const to_luastring: (s: string, cache?: boolean) => Uint8Array = fengariModule.to_luastring;
export const to_jsstring: (s: Uint8Array) => string = fengariModule.to_jsstring;
/** fengari internals we patch for Lua 5.1 number semantics (see numbers.ts). */
export const lobject: any = require('fengari/src/lobject.js');
export const ldebug: any = require('fengari/src/ldebug.js');
export const lvm: any = require('fengari/src/lvm.js');
/** fengari's table functions and type tags, for lazy.ts to fill tables without the stack API. */
export const ltable: any = require('fengari/src/ltable.js');
ltable.luaH_getn = gopherLuaTableLength;
export const fengariTypes: any = require('fengari/src/defs.js').constant_types;
export const luaS_bless: (L: unknown, s: Uint8Array) => unknown = lstring.luaS_bless;
/** The table hash of a fengari string (cached on it). */
export const luaS_hashlongstr: (s: unknown) => string = lstring.luaS_hashlongstr;
ModuleClass.prototype._compile = originalCompile;

/** fengari's table internals that the length below reads (ltable.js Table and its entry list). */
interface TableEntry { key: { type: number; value: unknown }; n?: TableEntry; p?: TableEntry }
interface FengariTable { strong: Map<unknown, TableEntry>; f?: TableEntry; l?: TableEntry }
interface LengthCache { size: number; last?: TableEntry; lastPrev?: TableEntry; length: number }
const lengthCache = new WeakMap<FengariTable, LengthCache>();
const DEAD_KEY = 10; // lobject.js LUA_TDEADKEY: the key of an entry removed from the table
const NUMBER_TAG = 3; // defs.js LUA_TNUMBER (integer and float keys share it in the low bits)
const GOPHER_MAX_ARRAY_INDEX = 67108864; // gopher-lua config.go MaxArrayIndex

/**
 * `#t` as Karmada's VM computes it: gopher-lua's LTable.Len (table.go), the index of the last non-nil slot
 * of its array part, which holds every positive integer key below MaxArrayIndex. So it is the largest such
 * key whose value is non-nil (0 if none): `#{nil, nil, 3}` is 3 and `t[5] = 1` on an empty table makes
 * `#t` 5, where fengari's border search (the ltable.luaH_getn this replaces; lvm's OP_LEN and lapi's
 * lua_rawlen call it through the module object) may return any border. The length is cached per table
 * with the table's size and last entry: entries appended since (fengari only appends) are scanned, a
 * deleted largest key is searched downwards, anything else scans the table, so `t[#t + 1] = v` loops and
 * pops stay linear.
 */
function gopherLuaTableLength(t: FengariTable): number {
  const size = t.strong.size;
  const cached = lengthCache.get(t);
  if (cached !== undefined && cached.size === size && cached.last === t.l) return cached.length;
  let length = -1;
  if (cached !== undefined) {
    // Entries after an anchor that was the table's last (or last but one) entry when cached are new.
    const anchor = cached.last === undefined ? null : cached.last.key.type !== DEAD_KEY ? cached.last
      : cached.lastPrev !== undefined && cached.lastPrev.key.type !== DEAD_KEY ? cached.lastPrev : undefined;
    if (anchor !== undefined) {
      let largestNew = 0;
      for (let e = anchor === null ? t.f : anchor.n; e !== undefined; e = e.n) {
        const k = e.key.value;
        if ((e.key.type & 0x0f) === NUMBER_TAG && typeof k === 'number' && k > largestNew && k < GOPHER_MAX_ARRAY_INDEX && Number.isInteger(k)) largestNew = k;
      }
      // Keys present when cached were at most cached.length: find the largest one still present.
      let old = cached.length;
      for (let steps = 0; old > 0 && !t.strong.has(old); old--) if (++steps > size) { old = -1; break; }
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
