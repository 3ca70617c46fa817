// The error of a Lua customization call (compiling, running or converting its result), with the function and line.
import { clip, MAX_MESSAGE_LENGTH } from '../protocol/wire.ts';

/**
 * The most of a Lua message an error keeps: a script that raises a string as large as its memory budget
 * sends the main thread (the error is made in the worker) and Karmada a few KiB, its beginning and
 * "… (N more characters)"; under the bound of status messages by room for what names the customization,
 * function and line before it, so the note survives.
 */
export const MAX_LUA_MESSAGE_LENGTH = MAX_MESSAGE_LENGTH - 1024;

/** How src/lua/state.ts ends a raised message it already cut (at 64 KiB): the whole length is kept in the note. */
const ALREADY_CUT = /\.\.\. (\(an error message of \d+ bytes, cut\))$/;
/** A message this bound already cut (errors are made again from errors: the note stays as it was). */
const BOUNDED = /… \((\d+ more characters|an error message of \d+ bytes, cut)\)$/;

function boundedMessage(message: string): string {
  if (message.length <= MAX_LUA_MESSAGE_LENGTH) return message;
  if (message.length <= MAX_LUA_MESSAGE_LENGTH + 64 && BOUNDED.test(message)) return message;
  const cut = ALREADY_CUT.exec(message);
  return cut ? `${message.slice(0, MAX_LUA_MESSAGE_LENGTH)}… ${cut[1]}` : clip(message, MAX_LUA_MESSAGE_LENGTH);
}
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

  constructor(message: string, details: { functionName?: string; line?: number; timeout?: boolean; abandoned?: boolean } = {}) {
    const luaMessage = boundedMessage(message);
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
