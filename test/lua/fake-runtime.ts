// A stand-in for src/lua/runtime.ts LuaRuntime: answers each script from a table, records every call,
// and fails compileCheck for scripts containing "SYNTAX ERROR" the way the real runtime reports it.
import type { CustomizationRuntime, LuaCallOptions } from '../../src/lua/interpreter.ts';

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

  private answer(method: string, script: string, args: unknown[], options?: LuaCallOptions): Promise<any> {
    this.calls.push({ method, script, args, options });
    const value = this.answers[script];
    if (value instanceof Error) return Promise.reject(value);
    if (value === undefined) return Promise.reject(new FakeLuaScriptError(`no answer for script ${script}`));
    return Promise.resolve(structuredClone(value));
  }

  getReplicas(script: string, obj: any, o?: LuaCallOptions) {
    return this.answer('getReplicas', script, [obj], o);
  }
  getComponents(script: string, obj: any, o?: LuaCallOptions) {
    return this.answer('getComponents', script, [obj], o);
  }
  reviseReplica(script: string, obj: any, replicas: number, o?: LuaCallOptions) {
    return this.answer('reviseReplica', script, [obj, replicas], o);
  }
  retain(script: string, desired: any, observed: any, o?: LuaCallOptions) {
    return this.answer('retain', script, [desired, observed], o);
  }
  aggregateStatus(script: string, obj: any, items: any, o?: LuaCallOptions) {
    return this.answer('aggregateStatus', script, [obj, items], o);
  }
  reflectStatus(script: string, observed: any, o?: LuaCallOptions) {
    return this.answer('reflectStatus', script, [observed], o);
  }
  interpretHealth(script: string, observed: any, o?: LuaCallOptions) {
    return this.answer('interpretHealth', script, [observed], o);
  }
  getDependencies(script: string, obj: any, o?: LuaCallOptions) {
    return this.answer('getDependencies', script, [obj], o);
  }
}
