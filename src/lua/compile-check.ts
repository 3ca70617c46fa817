// Compiling a script as gopher-lua would (Lua 5.1 escapes, Lua 5.3 operators refused), for the runtime's
// states and for checks without running it, as Karmada's admission check and `karmadactl interpret
// --check` do (LoadString): the latter on the customization load worker (src/customizations/load-worker.ts)
// for `serve`, `test` and `interpret`, and in `check`'s own process.
import { lauxlib, lua, to_luastring } from './engine/index.ts';
import { LuaScriptError } from './errors.ts';
import { luaToJsString } from './gopher/args.ts';
import { firstCompileError, toLua53Source } from './gopher/source.ts';

const CHUNK_NAME = to_luastring('=<string>');
let state: unknown;

/** Pushes `script`'s compiled chunk on L's stack; throws LuaScriptError (message and line), stack unchanged, when it does not compile. */
export function loadScript(L: unknown, script: string): void {
  const code = to_luastring(toLua53Source(script));
  const status = lauxlib.luaL_loadbuffer(L, code, code.length, CHUNK_NAME);
  const message = status === lua.LUA_OK ? undefined : luaToJsString(L, -1);
  const error = firstCompileError(script, message === undefined ? undefined : LuaScriptError.fromLuaMessage(message));
  if (!error) return;
  lua.lua_pop(L, 1); // the chunk, or fengari's message
  throw error;
}

/** Throws LuaScriptError (message and line) when `script` does not compile. */
export function compileCheck(script: string): void {
  const L = (state ??= lauxlib.luaL_newstate());
  loadScript(L, script);
  lua.lua_settop(L, 0);
}
