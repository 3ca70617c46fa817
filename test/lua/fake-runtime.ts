// A stand-in for src/lua/runtime.ts LuaRuntime: answers each script from a table, records every call,
// and fails compileCheck for scripts containing "SYNTAX ERROR" the way the real runtime reports it.
import type { CustomizationRuntime } from '../../src/customizations/interpreter.ts';
import { LUA_OPERATIONS, type LuaArgs, type LuaCallOptions, type LuaOperation, type LuaResult } from '../../src/lua/operations.ts';

export class FakeLuaScriptError extends Error {
  luaMessage: string;
  line?: number;
  functionName?: string;
  timeout: boolean;

  constructor(luaMessage: string, line?: number, functionName?: string, timeout = false) {
    super(luaMessage);
    this.luaMessage = luaMessage;
    this.line = line;
    this.functionName = functionName;
    this.timeout = timeout;
  }
}

export interface FakeCall {
  /** The KindInterpreter method the call serves (operations.ts). */
  method: string;
  script: string;
  args: unknown[];
  options?: LuaCallOptions;
}

export class FakeRuntime implements CustomizationRuntime {
  calls: FakeCall[] = [];
  compiled: string[] = [];
  /** Result per script text; an Error is thrown instead. */
  answers: Record<string, unknown>;
  constructor(answers: Record<string, unknown> = {}) {
    this.answers = answers;
  }

  compileCheck(script: string): void {
    this.compiled.push(script);
    const line = script.split('\n').findIndex((l) => l.includes('SYNTAX ERROR'));
    if (line >= 0) throw new FakeLuaScriptError(`unexpected symbol near 'ERROR'`, line + 1);
  }

  call<O extends LuaOperation>(operation: O, script: string, args: LuaArgs<O>, options?: LuaCallOptions): Promise<LuaResult<O>> {
    this.calls.push({ method: LUA_OPERATIONS[operation].method, script, args, options });
    const value = this.answers[script];
    if (value instanceof Error) return Promise.reject(value);
    if (value === undefined) return Promise.reject(new FakeLuaScriptError(`no answer for script ${script}`));
    return Promise.resolve(structuredClone(value) as LuaResult<O>);
  }
}
