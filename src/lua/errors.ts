// The error of a Lua customization call (compiling, running or converting its result), with the function and line.
/** A Lua customization failed: compile error, runtime error, timeout, or a result Karmada would reject. */
export class LuaScriptError extends Error {
  /** The Karmada Lua function that was called (GetReplicas, Retain, ...); unset for compile errors. */
  readonly functionName?: string;
  /** Script line the error points at, when Lua reported one. */
  readonly line?: number;
  /** The Lua (or conversion) message without the "<string>:N:" position prefix. */
  readonly luaMessage: string;
  /** The call ran past its deadline. */
  readonly timeout: boolean;
  /** The call never ran: its request's deadline passed while it waited for its turn. */
  readonly abandoned: boolean;

  constructor(luaMessage: string, details: { functionName?: string; line?: number; timeout?: boolean; abandoned?: boolean } = {}) {
    const where = [details.functionName, details.line !== undefined ? `line ${details.line}` : undefined].filter(Boolean).join(' ');
    super(where ? `${where}: ${luaMessage}` : luaMessage);
    this.name = 'LuaScriptError';
    this.functionName = details.functionName;
    this.line = details.line;
    this.luaMessage = luaMessage;
    this.timeout = details.timeout ?? false;
    this.abandoned = details.abandoned ?? false;
  }

  /** Splits a Lua error message "<string>:12: message" (chunk name as Karmada's DoString sets it). */
  static fromLuaMessage(message: string, details: { functionName?: string; timeout?: boolean } = {}): LuaScriptError {
    const match = /^<string>:(\d+): ([\s\S]*)$/.exec(message);
    if (match) return new LuaScriptError(match[2], { ...details, line: Number(match[1]) });
    return new LuaScriptError(message, details);
  }
}
