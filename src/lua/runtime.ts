// Runs Karmada ResourceInterpreterCustomization Lua functions with Karmada's semantics (luavm/lua.go):
// function names and result counts per operation, result conversion as ConvertLuaResultInto, a
// per-call deadline, a bounded pool of sandboxed states and a compile-once cache.
import type { AggregatedStatusItem, Component, DependentObjectReference, KObject, ReplicaRequirements } from '../interpreter/types.ts';
import { lua } from './engine/index.ts';
import { pushInterned } from './karmada/lazy.ts';
import { LuaEncodeError, encodeLuaValue, encodeLuaValueDroppingEmptyTables, lastEncodingHadEmptyTables } from './karmada/convert.ts';
import { repairEmptyTables } from './karmada/empty-repair.ts';
import { LuaScriptError } from './errors.ts';
import { LUA_OPERATIONS, type LuaArgs, type LuaCallOptions, type LuaOperation, type LuaResult } from './operations.ts';
import { LuaState } from './state.ts';
import { dependencyBoundProblem } from '../interpreter/answer-limits.ts';
import { goDecoded } from '../protocol/go-json.ts';
import { componentsSchema, decodeTyped, dependenciesSchema, replicaRequirementsSchema, TypedDecodeError } from './karmada/typed.ts';

export { LuaScriptError } from './errors.ts';

export type { LuaCallOptions } from './operations.ts';

export interface LuaRuntimeOptions {
  /** Idle states kept for reuse (Karmada: 10). */
  poolSize?: number;
  /** Per-call deadline (Karmada: 1 s). */
  timeoutMs?: number;
  /** How much a single call may grow the JS heap (plus external memory) before it is stopped. */
  memoryLimitMb?: number;
  /** Convert arguments eagerly (the reference implementation the lazy conversion is tested against). */
  eagerConversion?: boolean;
}

const utf8 = new TextDecoder();
const typeNameAt = (L: any, index: number): string => utf8.decode(lua.lua_typename(L, lua.lua_type(L, index)));

/** Result conversion step 1 + 2 of ConvertLuaResultInto (gopher-json encode, then empty-table repair). */
function encodeResult(L: any, index: number, targetIsStruct: boolean, references: unknown[], functionName: string): unknown {
  try {
    // Without reference objects the repair only drops empty tables: done while encoding.
    if (references.length === 0) return encodeLuaValueDroppingEmptyTables(L, index, targetIsStruct);
    const encoded = encodeLuaValue(L, index);
    // No empty table anywhere (the common case): the repair would return the encoding as it is.
    if (!lastEncodingHadEmptyTables()) return encoded;
    return repairEmptyTables(encoded, targetIsStruct, references);
  } catch (err) {
    if (err instanceof LuaEncodeError) {
      throw new LuaScriptError(`encode lua result to json failed: json: error calling MarshalJSON for type json.jsonValue: ${err.message}`, { functionName });
    }
    throw err;
  }
}

/** How much of a result without `kind` its error message quotes: with the customization's name, all of it fits in the answer's 4096 characters. */
const MAX_QUOTED_JSON = 2048;

/** Step 3 into *unstructured.Unstructured: a JSON object with a non-empty string `kind`. */
function asUnstructured(value: unknown, functionName: string): KObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LuaScriptError('json unmarshal obj failed: json: cannot unmarshal array into Go value of type map[string]interface {}', { functionName });
  }
  const kind = (value as KObject).kind;
  if (typeof kind !== 'string' || kind === '') {
    // apimachinery quotes the whole JSON; a few KiB of it name the object, and the answer stays small.
    const json = JSON.stringify(value);
    const quoted = json.length <= MAX_QUOTED_JSON ? json : `${json.slice(0, MAX_QUOTED_JSON)}... (${json.length} characters, cut)`;
    throw new LuaScriptError(`json unmarshal obj failed: Object 'Kind' is missing in '${quoted}'`, { functionName });
  }
  return value as KObject;
}

function typed<T>(value: unknown, schema: Parameters<typeof decodeTyped>[1], functionName: string): T {
  try {
    return decodeTyped<T>(value, schema);
  } catch (err) {
    if (err instanceof TypedDecodeError) throw new LuaScriptError(`json unmarshal obj failed: ${err.message}`, { functionName });
    throw err;
  }
}

function expectTable(L: any, index: number, what: string, functionName: string): void {
  if (lua.lua_type(L, index) !== lua.LUA_TTABLE) {
    throw new LuaScriptError(`expect the returned ${what} type is table but got ${typeNameAt(L, index)}`, { functionName });
  }
}

/** An AggregatedStatusItem as Go marshals it: `applied`, `appliedMessage`, `health`, `status` are omitempty. */
function asMarshalledItem(item: AggregatedStatusItem): AggregatedStatusItem {
  // Usually nothing is left out: then the item itself (the Lua conversion never modifies its input).
  const omitted = (key: keyof AggregatedStatusItem) => Object.hasOwn(item, key) && (key === 'status' ? item.status === null : !item[key]);
  if (!omitted('status') && !omitted('applied') && !omitted('appliedMessage') && !omitted('health')) return item;
  const out: AggregatedStatusItem = { ...item }; // fields a newer Karmada adds pass through
  if (out.status === null) delete out.status;
  if (!out.applied) delete out.applied;
  if (!out.appliedMessage) delete out.appliedMessage;
  if (!out.health) delete out.health;
  return out;
}

/** Go int32(float64) on amd64: truncation toward zero; NaN and out-of-range give MinInt32. */
function goInt32(x: number): number {
  if (!Number.isFinite(x) || x >= 2 ** 31 || x <= -(2 ** 31) - 1) return -(2 ** 31);
  return Math.trunc(x) | 0;
}

interface ResultRule<O extends LuaOperation> {
  /** Results the Lua function returns (Karmada's lua.go calls it with this count). */
  count: number;
  /** The values pushed as the function's arguments, when they are not the arguments as given. */
  arguments?: (args: LuaArgs<O>) => unknown[];
  /** Converts the results on the stack from index `first`, as Karmada's ConvertLuaResultInto does. */
  convert: (L: any, first: number, functionName: string, args: LuaArgs<O>) => LuaResult<O>;
}

/** Per operation: what luavm/lua.go does with the function's results. */
const RESULT_RULES: { [O in LuaOperation]: ResultRule<O> } = {
  InterpretReplica: {
    count: 2,
    convert: (L, first, fn) => {
      if (lua.lua_type(L, first) !== lua.LUA_TNUMBER) throw new LuaScriptError(`result type ${typeNameAt(L, first)} is not number`, { functionName: fn });
      const replicas = goInt32(lua.lua_tonumber(L, first));
      const second = first + 1;
      if (lua.lua_isnil(L, second)) return { replicas };
      expectTable(L, second, 'requires', fn);
      const requirements = typed<ReplicaRequirements>(encodeResult(L, second, true, [], fn), replicaRequirementsSchema, fn);
      return { replicas, requirements };
    },
  },
  InterpretComponent: {
    count: 1,
    convert: (L, first, fn) => {
      if (lua.lua_isnil(L, first)) return [];
      expectTable(L, first, 'components', fn);
      return typed<Component[]>(encodeResult(L, first, false, [], fn), componentsSchema, fn);
    },
  },
  ReviseReplica: {
    count: 1,
    convert: (L, first, fn, [object]) => {
      expectTable(L, first, 'requires', fn);
      return asUnstructured(encodeResult(L, first, true, [object], fn), fn);
    },
  },
  Retain: {
    count: 1,
    convert: (L, first, fn, [desired, observed]) => {
      expectTable(L, first, 'requires', fn);
      return asUnstructured(encodeResult(L, first, true, [desired, observed], fn), fn);
    },
  },
  AggregateStatus: {
    count: 1,
    // Karmada marshals the item slice: a nil slice is JSON null -> Lua nil; an empty one is {}.
    arguments: ([object, items]) => [object, items ? items.map(asMarshalledItem) : null],
    convert: (L, first, fn) => {
      expectTable(L, first, 'requires', fn);
      return asUnstructured(encodeResult(L, first, true, [], fn), fn);
    },
  },
  InterpretStatus: {
    count: 1,
    convert: (L, first, fn) => {
      expectTable(L, first, 'replica', fn);
      // runtime.RawExtension keeps whatever JSON the script produced.
      return encodeResult(L, first, true, [], fn) as Record<string, any>;
    },
  },
  InterpretHealth: {
    count: 1,
    convert: (L, first, fn) => {
      if (lua.lua_type(L, first) !== lua.LUA_TBOOLEAN) throw new LuaScriptError(`result type ${typeNameAt(L, first)} is not bool`, { functionName: fn });
      return lua.lua_toboolean(L, first) as boolean;
    },
  },
  InterpretDependency: {
    count: 1,
    convert: (L, first, fn) => {
      expectTable(L, first, 'requires', fn);
      // One script's share of the answer is bounded here, in the worker (the merged answer by its caller):
      // a list longer than the bound is refused before it is encoded.
      const tooMany = dependencyBoundProblem(lua.lua_rawlen(L, first), 0);
      if (tooMany) throw new LuaScriptError(`the result has ${tooMany}`, { functionName: fn });
      return typed<DependentObjectReference[]>(encodeResult(L, first, false, [], fn), dependenciesSchema, fn);
    },
  },
};

export class LuaRuntime {
  private readonly poolSize: number;
  private readonly timeoutMs: number;
  private readonly memoryLimitBytes: number;
  private readonly eagerConversion: boolean;
  private readonly idle: LuaState[] = [];
  private inUse = 0;
  private cacheHits = 0;
  private cacheMisses = 0;
  private closed = false;

  constructor(opts: LuaRuntimeOptions = {}) {
    this.poolSize = opts.poolSize ?? 10;
    this.timeoutMs = opts.timeoutMs ?? 1000;
    this.memoryLimitBytes = (opts.memoryLimitMb ?? 128) * 1024 * 1024;
    this.eagerConversion = opts.eagerConversion ?? false;
  }

  /** Like Karmada's admission check (LoadString): throws LuaScriptError when the script does not compile. */
  compileCheck(script: string): void {
    const state = this.acquire();
    try {
      this.compile(state, script);
    } finally {
      this.release(state);
    }
  }

  /** Runs the Lua function of `operation` defined by `script`, with Karmada's arguments and result rules. */
  async call<O extends LuaOperation>(operation: O, script: string, args: LuaArgs<O>, options?: LuaCallOptions): Promise<LuaResult<O>> {
    const { functionName } = LUA_OPERATIONS[operation];
    const rule = RESULT_RULES[operation] as ResultRule<O>;
    // Scripts see the arguments as Karmada's Lua does: as Go's encoding/json decoded them (lone surrogates U+FFFD).
    const decoded = args.map(goDecoded) as unknown as LuaArgs<O>;
    const luaArgs = rule.arguments ? rule.arguments(decoded) : decoded;
    return this.run(script, functionName, luaArgs, rule.count, options, (L, first) => rule.convert(L, first, functionName, decoded));
  }

  stats(): { cacheHits: number; cacheMisses: number; poolSize: number; statesInUse: number } {
    return { cacheHits: this.cacheHits, cacheMisses: this.cacheMisses, poolSize: this.idle.length, statesInUse: this.inUse };
  }

  close(): void {
    this.closed = true;
    for (const state of this.idle.splice(0)) state.close();
  }

  private compile(state: LuaState, script: string): number {
    const { ref, cached } = state.chunk(script);
    if (cached) this.cacheHits++;
    else this.cacheMisses++;
    return ref;
  }

  private acquire(): LuaState {
    if (this.closed) throw new Error('LuaRuntime is closed');
    const state = this.idle.pop() ?? new LuaState(this.eagerConversion);
    this.inUse++;
    return state;
  }

  private release(state: LuaState): void {
    this.inUse--;
    state.print = undefined;
    if (this.closed || state.poisoned || this.idle.length >= this.poolSize) state.close();
    else this.idle.push(state);
  }

  private async run<T>(
    script: string,
    functionName: string,
    args: unknown[],
    resultCount: number,
    options: LuaCallOptions | undefined,
    convert: (L: any, firstResult: number) => T,
  ): Promise<T> {
    const state = this.acquire();
    try {
      let chunkRef: number;
      try {
        chunkRef = this.compile(state, script);
      } catch (err) {
        if (err instanceof LuaScriptError) throw new LuaScriptError(err.luaMessage, { functionName, line: err.line });
        throw err;
      }
      const timeoutMs = options?.timeoutMs ?? this.timeoutMs;
      state.print = options?.onPrint;
      let result: T | undefined;
      state.run(chunkRef, { deadline: performance.now() + timeoutMs, timeoutMs, memoryLimitBytes: this.memoryLimitBytes }, functionName, (L) => {
        // Stack: 1 = the call's _ENV with the script's definitions.
        pushInterned(L, functionName); // one fengari string per name (lua_getfield would make a new one per call)
        lua.lua_gettable(L, 1);
        const type = lua.lua_type(L, 2);
        if (type === lua.LUA_TNIL) throw new LuaScriptError(`not found function ${functionName}`, { functionName });
        if (type !== lua.LUA_TFUNCTION) throw new LuaScriptError(`${functionName} is not a function: ${typeNameAt(L, 2)}`, { functionName });
        for (const arg of args) state.pushArgument(arg);
        lua.lua_call(L, args.length, resultCount);
        result = convert(L, 2);
      });
      return result as T;
    } finally {
      this.release(state);
    }
  }
}
