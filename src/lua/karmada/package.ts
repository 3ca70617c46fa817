// Karmada's safe package library (pkg/util/lifted/lua/loadlib_safe.go, gopher-lua's loadlib.go cut down):
// the package table (preload, loaded, loaders holding only the preload loader) and `require` over it, which
// consults nothing else; sandbox.ts says what package.preload holds (kube).
import { lua, lauxlib, to_luastring } from '../engine/index.ts';
import { checkedString, raise, type CFunction } from '../gopher/args.ts';
import { pushInterned } from './lazy.ts';

/** loLoaderPreload: package.preload[name], or the message saying it is not there. */
const preloadLoader: CFunction = (L) => {
  const name = checkedString(L, 1);
  lua.lua_getfield(L, lua.lua_upvalueindex(1), to_luastring('preload'));
  if (lua.lua_type(L, -1) !== lua.LUA_TTABLE) raise(L, 'package.preload must be a table');
  lua.lua_getfield(L, -1, to_luastring(name));
  if (lua.lua_isnil(L, -1)) lua.lua_pushstring(L, to_luastring(`\n\tno field package.preload['${name}']`));
  return 1;
};

/**
 * gopher-lua's require over package.loaded and package.loaders (which only hold the preload loader).
 * The module name is used as the script's string itself (as Go does), and `loaded` is an interned
 * string: a script calls require("kube") on every call, and getfield made and hashed two new strings.
 */
export const requireModule: CFunction = (L) => {
  lauxlib.luaL_checklstring(L, 1); // a number argument becomes a string in place, as in gopher-lua
  lua.lua_settop(L, 1);
  const pkg = lua.lua_upvalueindex(1);
  pushInterned(L, 'loaded');
  lua.lua_gettable(L, pkg); // 2
  lua.lua_pushvalue(L, 1);
  lua.lua_gettable(L, 2); // 3
  if (lua.lua_toboolean(L, 3)) return 1;
  lua.lua_pop(L, 1);
  const name = checkedString(L, 1);
  lua.lua_getfield(L, pkg, to_luastring('preload')); // 3
  if (lua.lua_type(L, 3) !== lua.LUA_TTABLE) raise(L, 'package.preload must be a table');
  lua.lua_pushvalue(L, 1);
  lua.lua_gettable(L, 3); // 4
  if (lua.lua_type(L, 4) !== lua.LUA_TFUNCTION) raise(L, `module ${name} not found:\n\tno field package.preload['${name}']`);
  lua.lua_pushvalue(L, 1);
  lua.lua_call(L, 1, 1); // 4: module value
  if (lua.lua_isnil(L, 4)) {
    lua.lua_pop(L, 1);
    lua.lua_pushboolean(L, true);
  }
  lua.lua_pushvalue(L, 1);
  lua.lua_pushvalue(L, 4);
  lua.lua_settable(L, 2);
  return 1;
};

/** Pushes a new package table whose package.preload holds `preload`. */
export function pushPackage(L: any, preload: Record<string, CFunction>): void {
  lua.lua_createtable(L, 0, 4);
  const pkg = lua.lua_gettop(L);
  lua.lua_createtable(L, 0, 1);
  for (const [name, open] of Object.entries(preload)) {
    lua.lua_pushcfunction(L, open);
    lua.lua_setfield(L, -2, to_luastring(name));
  }
  lua.lua_setfield(L, pkg, to_luastring('preload'));
  lua.lua_createtable(L, 0, 1);
  lua.lua_setfield(L, pkg, to_luastring('loaded'));
  lua.lua_createtable(L, 1, 0);
  lua.lua_pushvalue(L, pkg);
  lua.lua_pushcclosure(L, preloadLoader, 1);
  lua.lua_rawseti(L, -2, 1);
  lua.lua_setfield(L, pkg, to_luastring('loaders'));
  lua.lua_pushcfunction(L, (Ls: any) => raise(Ls, 'loadlib is not supported'));
  lua.lua_setfield(L, pkg, to_luastring('loadlib'));
}
