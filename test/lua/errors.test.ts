// A Lua error's message is bounded where the error is made (in the worker that ran the script), so a
// script raising a string as large as its memory budget sends a few KiB to the main thread and Karmada.
import { describe, expect, it } from 'vitest';
import { LuaScriptError, MAX_LUA_MESSAGE_LENGTH } from '../../src/lua/errors.ts';

describe('LuaScriptError', () => {
  it('keeps the beginning of a long message and says how much was left out', () => {
    const error = LuaScriptError.fromLuaMessage(`<string>:3: ${'x'.repeat(100_000)}`, { functionName: 'Retain' });
    expect(error.line).toBe(3);
    expect(error.luaMessage).toBe(`${'x'.repeat(MAX_LUA_MESSAGE_LENGTH)}… (${100_000 - MAX_LUA_MESSAGE_LENGTH} more characters)`);
    expect(error.message).toBe(`Retain line 3: ${error.luaMessage}`);
    expect(new LuaScriptError('short').luaMessage).toBe('short');
  });

  it('keeps the length of a message the Lua state already cut', () => {
    const error = new LuaScriptError(`${'y'.repeat(65_536)}... (an error message of 16777216 bytes, cut)`);
    expect(error.luaMessage).toBe(`${'y'.repeat(MAX_LUA_MESSAGE_LENGTH)}… (an error message of 16777216 bytes, cut)`);
    // An error made again from a cut one keeps its note.
    expect(new LuaScriptError(error.luaMessage).luaMessage).toBe(error.luaMessage);
    const cut = new LuaScriptError('z'.repeat(10_000)).luaMessage;
    expect(new LuaScriptError(cut).luaMessage).toBe(cut);
  });
});
