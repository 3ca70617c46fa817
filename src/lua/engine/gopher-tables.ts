// `#` and `pairs`/`next` as gopher-lua computes them (table.go LTable.Len and LTable.Next), in place of
// fengari's luaH_getn and luaH_next, over fengari's table internals. lvm's OP_LEN, lapi's lua_rawlen and
// lua_next call these through ltable's module object, so the VM, the table library and `unpack` all see them.
import { DEAD_KEY, lobject, ltable, types, type Table, type TableEntry, type TValue } from './fengari.ts';

interface LengthCache {
  size: number;
  last?: TableEntry;
  lastPrev?: TableEntry;
  length: number;
}
let lengthCache = new WeakMap<Table, LengthCache>();
const NUMBER_TAG = 3; // defs.js LUA_TNUMBER (integer and float keys share it in the low bits)
const GOPHER_MAX_ARRAY_INDEX: number = ltable.GOPHER_MAX_ARRAY_INDEX; // gopher-lua config.go MaxArrayIndex

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
function gopherLuaTableLength(t: Table): number {
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

ltable.luaH_getn = gopherLuaTableLength;

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
let arrayKeysCache = new WeakMap<Table, ArrayKeys>();
const fengariNext: (L: any, table: Table, keyIndex: number) => boolean = ltable.luaH_next;

function isArrayKey(key: unknown): key is number {
  return typeof key === 'number' && key >= 1 && key < GOPHER_MAX_ARRAY_INDEX && Number.isInteger(key);
}

/** isArrayKey for a key on the stack, which must be a number (a light userdata's value can be one too). */
function isArrayKeyValue(key: TValue): boolean {
  return (key.type & 0x0f) === NUMBER_TAG && isArrayKey(key.value);
}

/**
 * The keys gopher-lua would hold in its array part. fengari only appends entries (at `l`), so while the
 * last entry is the one seen when they were collected nothing was added since: the list is still a
 * superset (keys deleted since are skipped where it is read), and one traversal sorts once.
 */
function arrayKeysOf(table: Table): number[] {
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

/**
 * fengari's next from the key at keyIndex, passing over array keys (already walked) and the entries of
 * deleted keys, which the patched ltable keeps in place with a nil value so that a key set again keeps its
 * place (gopher-lua's keys list never forgets a key: table.go RawSetH, LTable.Next).
 */
function nextOtherKey(L: any, table: Table, keyIndex: number): boolean {
  while (fengariNext(L, table, keyIndex)) {
    if (L.stack[keyIndex + 1].type !== types.LUA_TNIL && !isArrayKeyValue(L.stack[keyIndex])) return true;
  }
  return false;
}

ltable.luaH_next = function nextLikeGopherLua(L: any, table: Table, keyIndex: number): boolean {
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
 * caches would have every call's tables promoted, and scavenges slow.
 */
export function forgetTableCaches(): void {
  lengthCache = new WeakMap();
  arrayKeysCache = new WeakMap();
}
