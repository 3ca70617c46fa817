// Compiling a script without running it, as Karmada's admission check and `karmadactl interpret --check`
// do (LoadString): on the main thread, since it only parses configuration the operator wrote.
import { lauxlib, lua, to_luastring } from './fengari.ts';
import { LuaScriptError } from './errors.ts';
import { luaToJsString } from './sandbox.ts';
import { firstCompileError, toLua53Source } from './source.ts';

const CHUNK_NAME = to_luastring('=<string>');
let state: unknown;

/** Throws LuaScriptError (message and line) when `script` does not compile. */
export function compileCheck(script: string): void {
  const L = (state ??= lauxlib.luaL_newstate());
  const code = to_luastring(toLua53Source(script));
  const status = lauxlib.luaL_loadbuffer(L, code, code.length, CHUNK_NAME);
  const message = status === lua.LUA_OK ? undefined : luaToJsString(L, -1);
  lua.lua_settop(L, 0);
  const error = firstCompileError(script, message === undefined ? undefined : LuaScriptError.fromLuaMessage(message));
  if (error) throw error;
}
