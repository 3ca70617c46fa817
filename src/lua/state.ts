// One sandboxed fengari state: compiled chunks (per state, keyed by script text), a per-call
// environment, the deadline/memory guard in a count hook, and restoration of anything a script
// changed in the shared library tables.
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import {
  fingerprint,
  forgetTableCaches,
  lua,
  lauxlib,
  markChecked,
  observeStringAllocations,
  setAllocationGuard,
  tableAt,
  to_luastring,
  unchangedSince,
  type LuaTable,
  type TableFingerprint,
} from './engine/index.ts';
import { luaToJsString } from './gopher/args.ts';
import { openSandbox, pushFreshGlobals, type SandboxHandles } from './sandbox.ts';
import { LuaScriptError } from './errors.ts';
import { loadScript } from './compile-check.ts';
import { createLazyMetatable, pushLazyJson, useLazyResults } from './karmada/lazy.ts';
import { pushJson } from './karmada/convert.ts';

/** Instructions between two deadline checks: often enough to stop a loop within milliseconds of its deadline. */
const HOOK_INSTRUCTIONS = 1000;
/** Hook calls between two heap checks (reading heap statistics costs more than a deadline check). */
const HOOK_CALLS_PER_MEMORY_CHECK = 8;
/** Bytes a call may allocate in small pieces (counted, not measured) between two heap checks. */
const COUNTED_BYTES_PER_MEMORY_CHECK = 8 * 1024 * 1024;
/** An allocation at least this large reads the heap first: it must fit in what is left of the budget. */
const LARGE_ALLOCATION = 64 * 1024;
/** The longest error message a call returns (Lua bytes); a longer one is cut, with a note of its length. */
const MAX_ERROR_MESSAGE_BYTES = 64 * 1024;
/** Compiled chunks kept per state (least recently used dropped first). */
export const MAX_CHUNKS_PER_STATE = 512;

export interface CallLimits {
  deadline: number; // performance.now() value
  timeoutMs: number;
  memoryLimitBytes: number;
}

export type CallBody = (L: any) => void;

interface TableSnapshot {
  table: LuaTable;
  entries: TableFingerprint;
  shadowRef: number;
  ref: number;
}

/**
 * The heap a call's budget is measured on: V8's heap less its young generation, plus external memory (where
 * fengari keeps strings). The young generation is mostly the call's garbage, which a scavenge may or may
 * not have freed when the heap is read; its size is bounded (the worker's young-generation limit), and what
 * survives there is counted once it moves to the old generation.
 */
function heapInUse(): number {
  let young = 0;
  for (const space of getHeapSpaceStatistics()) if (space.space_name === 'new_space') young = space.space_used_size;
  const stats = getHeapStatistics();
  return stats.used_heap_size - young + stats.external_memory;
}

export class LuaState {
  readonly L: any;
  private readonly handles: SandboxHandles;
  /** fengari's table object behind handles.baseRef, copied into each call's globals. */
  private readonly baseTable: LuaTable;
  private readonly chunks = new Map<string, number>();
  private readonly snapshots: TableSnapshot[] = [];
  private limits: CallLimits | undefined;
  private hookCalls = 0;
  private heapBaseline = 0;
  /** The call's heap growth at the last heap check, and the bytes counted since (allocations about to happen or just made). */
  private heapGrowthAtCheck = 0;
  private countedSinceCheck = 0;
  private failure: 'timeout' | 'memory' | undefined;
  private nativeError: unknown;
  private body: CallBody | undefined;
  private readonly lazyMetaRef: number;
  print: ((line: string) => void) | undefined;
  /** A state that hit a limit or an internal error is closed instead of going back to the pool. */
  poisoned = false;

  /** @param eagerConversion convert arguments (and kube results) eagerly: the reference, for tests */
  private readonly eagerConversion: boolean;

  constructor(eagerConversion = false) {
    this.eagerConversion = eagerConversion;
    const L = lauxlib.luaL_newstate();
    this.L = L;
    this.handles = openSandbox(L, () => this.print);
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, this.handles.baseRef);
    this.baseTable = tableAt(L, -1);
    lua.lua_pop(L, 1);
    lua.lua_atnativeerror(L, (Ls: any) => {
      // A JS exception inside a Lua call (our conversion code, a RangeError...): keep it for the
      // caller and turn it into a Lua error so the protected call unwinds normally.
      const error = lua.lua_touserdata(Ls, -1);
      this.nativeError = error;
      lua.lua_pushstring(Ls, to_luastring(String((error as Error)?.message ?? error)));
      return 1;
    });
    this.lazyMetaRef = createLazyMetatable(L);
    if (!eagerConversion) useLazyResults(L, this.lazyMetaRef);
    lua.lua_sethook(L, this.hook, lua.LUA_MASKCOUNT, HOOK_INSTRUCTIONS);
    for (const ref of this.handles.protectedRefs) this.snapshots.push(this.snapshot(ref));
    for (const snapshot of this.snapshots) markChecked(snapshot.table);
  }

  /** Compiles `script` in this state (once); returns the registry reference of the chunk. */
  chunk(script: string): { ref: number; cached: boolean } {
    const existing = this.chunks.get(script);
    if (existing !== undefined) {
      // Map order is the eviction order: move a used chunk to the end (least recently used first).
      this.chunks.delete(script);
      this.chunks.set(script, existing);
      return { ref: existing, cached: true };
    }
    loadScript(this.L, script);
    const ref = lauxlib.luaL_ref(this.L, lua.LUA_REGISTRYINDEX);
    if (this.chunks.size >= MAX_CHUNKS_PER_STATE) {
      // Scripts come from configuration, so this only trims after many reloads: drop the least recently used.
      const [oldScript, oldRef] = this.chunks.entries().next().value as [string, number];
      this.chunks.delete(oldScript);
      lauxlib.luaL_unref(this.L, lua.LUA_REGISTRYINDEX, oldRef);
    }
    this.chunks.set(script, ref);
    return { ref, cached: false };
  }

  /** Pushes a call argument: lazily (karmada/lazy.ts), or eagerly (the reference conversion, for tests). */
  pushArgument(value: unknown): void {
    if (this.eagerConversion) pushJson(this.L, value);
    else pushLazyJson(this.L, value, this.lazyMetaRef);
  }

  get compiledCount(): number {
    return this.chunks.size;
  }

  /**
   * Runs `body` in protected mode with a fresh global environment for `chunkRef` already installed
   * (the chunk has run; the environment is at stack index 1). Lua errors become LuaScriptError.
   */
  run(chunkRef: number, limits: CallLimits, functionName: string, body: CallBody): void {
    const L = this.L;
    this.limits = limits;
    this.hookCalls = 0;
    this.heapBaseline = heapInUse();
    this.heapGrowthAtCheck = 0;
    this.countedSinceCheck = 0;
    this.failure = undefined;
    this.nativeError = undefined;
    this.body = body;
    lua.lua_settop(L, 0);
    observeStringAllocations(this.countStringAllocation);
    setAllocationGuard(this.reserve);
    try {
      lua.lua_pushcfunction(L, this.runProtected);
      lua.lua_pushinteger(L, chunkRef);
      const status = lua.lua_pcall(L, 1, 0, 0);
      if (status !== lua.LUA_OK) {
        const message =
          lua.lua_type(L, -1) === lua.LUA_TSTRING || lua.lua_type(L, -1) === lua.LUA_TNUMBER
            ? errorMessageText(L)
            : `(error object is a ${new TextDecoder().decode(lua.lua_typename(L, lua.lua_type(L, -1)))} value)`;
        if (this.failure) this.poisoned = true;
        if (this.nativeError instanceof LuaScriptError) throw this.nativeError;
        if (this.nativeError !== undefined) this.poisoned = true;
        const parsed = LuaScriptError.fromLuaMessage(message);
        const timeout = this.failure === 'timeout';
        const luaMessage = timeout ? `script timed out after ${limits.timeoutMs}ms (${parsed.luaMessage})` : parsed.luaMessage;
        throw new LuaScriptError(luaMessage, { functionName, line: parsed.line, timeout });
      }
    } finally {
      observeStringAllocations(undefined);
      setAllocationGuard(undefined);
      this.limits = undefined;
      this.body = undefined;
      lua.lua_settop(L, 0);
      if (!this.poisoned) this.restoreProtectedTables();
      forgetTableCaches();
    }
  }

  private readonly runProtected = (L: any): number => {
    const chunkRef = lua.lua_tointeger(L, 1);
    lua.lua_settop(L, 0);
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, chunkRef); // 1: chunk
    pushFreshGlobals(L, this.baseTable); // 2: _ENV for this call
    lua.lua_pushvalue(L, 2);
    lua.lua_setupvalue(L, 1, 1);
    lua.lua_pushvalue(L, 1);
    lua.lua_call(L, 0, 0); // defines the script's functions in the fresh environment
    lua.lua_remove(L, 1); // 1: _ENV
    this.body!(L);
    return 0;
  };

  private readonly hook = (L: any): void => this.onHook(L);

  private onHook(L: any): void {
    const limits = this.limits;
    if (!limits) return;
    // Once a limit is hit the hook fires on every instruction (as gopher-lua checks its context on
    // every instruction), so a script that catches the error with pcall is stopped right after.
    if (this.failure === 'memory') this.failMemory(L);
    if (this.failure === 'timeout' || performance.now() > limits.deadline) {
      this.failure = 'timeout';
      lua.lua_sethook(L, this.hook, lua.LUA_MASKCOUNT, 1);
      raiseAtCurrentLine(L, 'context deadline exceeded');
    }
    if (++this.hookCalls % HOOK_CALLS_PER_MEMORY_CHECK === 0) this.checkMemory(L);
  }

  // --- the memory budget ------------------------------------------------------------------------
  // fengari has no allocator hook. What a call may still allocate is its budget minus its heap growth
  // (heap plus external memory, where Lua strings live) at the last heap check, minus what was counted
  // since: reading the heap statistics costs a few microseconds, so small allocations are only counted
  // and the heap is read when they add up (or when they would pass the budget by the count), while a
  // large one reads it first and fails if it does not fit. fengari's concatenation, string buffers and
  // string functions, and the builtins written here (engine guardAllocation), call the allocation
  // guard before they allocate; the strings fengari creates are counted once made; the count hook reads
  // the heap every few thousand instructions.

  /**
   * Reads the heap: the call's growth so far; the count starts again. The level the call started from
   * held garbage of earlier calls: once the collector frees it the heap falls below that level, and the
   * growth is counted from the lowest level seen instead (or the freed garbage would add to the budget).
   */
  private checkHeap(): number {
    const inUse = heapInUse();
    if (inUse < this.heapBaseline) this.heapBaseline = inUse;
    this.heapGrowthAtCheck = inUse - this.heapBaseline;
    this.countedSinceCheck = 0;
    return this.heapGrowthAtCheck;
  }

  /**
   * Before an allocation of `bytes`: raises the memory-limit error at the script's line when they do not
   * fit in what is left of the call's budget. Raising a Lua error is safe where builtins and fengari's
   * guarded allocations call this (in C Lua the same places raise memory errors).
   */
  private readonly reserve = (L: unknown, bytes: number): void => {
    const limits = this.limits;
    if (!limits) return;
    if (this.failure === 'memory') this.failMemory(L);
    const limit = limits.memoryLimitBytes;
    this.countedSinceCheck += bytes;
    if (bytes < LARGE_ALLOCATION && this.countedSinceCheck < COUNTED_BYTES_PER_MEMORY_CHECK && this.heapGrowthAtCheck + this.countedSinceCheck <= limit) return;
    const growth = this.checkHeap();
    // NaN (a size computed from nonsense) fails too.
    if (!(growth + bytes <= limit)) this.failMemory(L);
    this.countedSinceCheck = bytes; // not in the reading yet
  };

  /**
   * Called from inside fengari's string creation for every string longer than 64 bytes (e.g. in the middle
   * of OP_CONCAT), where raising a Lua error is not safe: past the budget it only records the failure and
   * makes the count hook fire at the next instruction, which raises it.
   */
  private readonly countStringAllocation = (L: unknown, bytes: number): void => {
    if (!this.limits || this.failure) return;
    this.countedSinceCheck += bytes;
    if (this.countedSinceCheck >= COUNTED_BYTES_PER_MEMORY_CHECK && this.checkHeap() > this.limits.memoryLimitBytes) {
      this.failure = 'memory';
      lua.lua_sethook(L, this.hook, lua.LUA_MASKCOUNT, 1);
    }
  };

  private memoryMessage(): string {
    return `memory limit exceeded: the call grew the heap by more than ${Math.round(this.limits!.memoryLimitBytes / 1048576)} MiB`;
  }

  /** Raises the memory-limit error; from now on the hook raises it again at every instruction. */
  private failMemory(L: unknown): never {
    this.failure = 'memory';
    lua.lua_sethook(L, this.hook, lua.LUA_MASKCOUNT, 1);
    raiseAtCurrentLine(L, this.memoryMessage());
  }

  private checkMemory(L: unknown): void {
    if (this.checkHeap() > this.limits!.memoryLimitBytes) this.failMemory(L);
  }

  // --- protecting the shared library tables -------------------------------------------------------
  // Scripts may assign into string/table/math/os/package/kube or the base table (Karmada allows it and
  // keeps the change in its pooled state). After every call each table is compared with a fingerprint of
  // its entries and only a changed table is rebuilt, through the public API, from a shadow copy. A table
  // not written since its last check (engine markChecked) is not compared entry by entry.

  private snapshot(ref: number): TableSnapshot {
    const L = this.L;
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, ref);
    const table = tableAt(L, -1);
    lua.lua_createtable(L, 0, 0);
    lua.lua_pushnil(L);
    while (lua.lua_next(L, -3) !== 0) {
      lua.lua_pushvalue(L, -2);
      lua.lua_insert(L, -2);
      lua.lua_rawset(L, -4);
    }
    const shadowRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    lua.lua_pop(L, 1);
    return { table, entries: fingerprint(table), shadowRef, ref };
  }

  private restoreProtectedTables(): void {
    const L = this.L;
    for (const snapshot of this.snapshots) {
      if (unchangedSince(snapshot.table, snapshot.entries)) continue;
      lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, snapshot.ref);
      const keys: number[] = [];
      lua.lua_pushnil(L);
      while (lua.lua_next(L, -2) !== 0) {
        // collect keys, then clear
        lua.lua_pop(L, 1);
        lua.lua_pushvalue(L, -1);
        keys.push(lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX));
      }
      for (const keyRef of keys) {
        lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, keyRef);
        lua.lua_pushnil(L);
        lua.lua_rawset(L, -3);
        lauxlib.luaL_unref(L, lua.LUA_REGISTRYINDEX, keyRef);
      }
      lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, snapshot.shadowRef);
      lua.lua_pushnil(L);
      while (lua.lua_next(L, -2) !== 0) {
        lua.lua_pushvalue(L, -2);
        lua.lua_insert(L, -2);
        lua.lua_rawset(L, -5);
      }
      lua.lua_settop(L, 0);
      // Entries were re-created: take a fresh fingerprint.
      snapshot.entries = fingerprint(snapshot.table);
    }
    for (const snapshot of this.snapshots) markChecked(snapshot.table);
  }

  close(): void {
    this.chunks.clear();
  }
}

/**
 * The error message on top of the stack, as text: a message longer than MAX_ERROR_MESSAGE_BYTES (a script
 * can raise a string as large as its memory budget) keeps its beginning and says how long it was.
 */
function errorMessageText(L: any): string {
  const bytes = lua.lua_tolstring(L, -1) as Uint8Array;
  if (bytes.length <= MAX_ERROR_MESSAGE_BYTES) return luaToJsString(L, -1);
  const kept = new TextDecoder().decode(bytes.subarray(0, MAX_ERROR_MESSAGE_BYTES));
  return `${kept}... (an error message of ${bytes.length} bytes, cut)`;
}

/** Raises a Lua error positioned at the running Lua line (luaL_error's level 1 is the caller, not the hooked function). */
function raiseAtCurrentLine(L: any, message: string): never {
  const ar = new lua.lua_Debug();
  let where = '';
  // Level 0 is the running function: the hooked Lua function, or a library function (string.find)
  // whose Lua caller is the line we want.
  for (let level = 0; level <= 1 && where === ''; level++) {
    if (lua.lua_getstack(L, level, ar) && lua.lua_getinfo(L, to_luastring('Sl'), ar) && ar.currentline > 0) where = `<string>:${ar.currentline}: `;
  }
  lua.lua_pushstring(L, to_luastring(where + message));
  lua.lua_error(L);
  throw new Error('unreachable');
}
