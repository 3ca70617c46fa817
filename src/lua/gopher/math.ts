// gopher-lua's math library where it is not fengari's (mathlib.go): floats from floor/ceil, Go's math
// functions (pow, modf, ldexp, frexp, fmod), Lua 5.1 names (atan2, cosh, log10, mod...), max/min on numbers.
import { goFrexp, goLdexp, goModf, goPow } from '../../go/math.ts';
import { lua, lauxlib } from '../engine/index.ts';
import { goIntArg, raise, type CFunction } from './args.ts';

const number1 =
  (fn: (x: number) => number): CFunction =>
  (L) => {
    lua.lua_pushnumber(L, fn(lauxlib.luaL_checknumber(L, 1)));
    return 1;
  };

/**
 * gopher-lua math.max / math.min: every argument through CheckNumber (numeric strings converted), the
 * result a number. fengari compares the original values, so numeric strings compare as strings
 * (math.max("2", "10") is "2") and a string mixed with a number raises.
 */
function mathExtreme(pick: (candidate: number, best: number) => boolean): CFunction {
  return (L) => {
    const top = lua.lua_gettop(L);
    if (top === 0) raise(L, 'wrong number of arguments');
    let best = lauxlib.luaL_checknumber(L, 1);
    for (let i = 2; i <= top; i++) {
      const candidate = lauxlib.luaL_checknumber(L, i);
      if (pick(candidate, best)) best = candidate;
    }
    lua.lua_pushnumber(L, best);
    return 1;
  };
}

/** The functions gopher-lua's math library has and fengari's lacks or computes otherwise. */
export const GOPHER_MATH_FUNCTIONS: Record<string, CFunction> = {
  max: mathExtreme((candidate, best) => candidate > best),
  min: mathExtreme((candidate, best) => candidate < best),
  // Lua 5.1 floor/ceil return floats; fengari's would return (32-bit) integers.
  floor: number1(Math.floor),
  ceil: number1(Math.ceil),
  atan: number1(Math.atan),
  atan2: (L) => {
    lua.lua_pushnumber(L, Math.atan2(lauxlib.luaL_checknumber(L, 1), lauxlib.luaL_checknumber(L, 2)));
    return 1;
  },
  cosh: number1(Math.cosh),
  sinh: number1(Math.sinh),
  tanh: number1(Math.tanh),
  log10: number1(Math.log10),
  log: number1(Math.log),
  // Go's expressions, in Go's order of operations (x * 180 / Pi rounds differently from x * (180 / Pi)).
  deg: number1((x) => (x * 180) / Math.PI),
  rad: number1((x) => (x * Math.PI) / 180),
  // math.Mod on any two numbers (fengari raises for two integer-typed arguments and a zero divisor).
  fmod: (L) => {
    lua.lua_pushnumber(L, lauxlib.luaL_checknumber(L, 1) % lauxlib.luaL_checknumber(L, 2));
    return 1;
  },
  modf: (L) => {
    const [int, frac] = goModf(lauxlib.luaL_checknumber(L, 1));
    lua.lua_pushnumber(L, int);
    lua.lua_pushnumber(L, frac);
    return 2;
  },
  pow: (L) => {
    lua.lua_pushnumber(L, goPow(lauxlib.luaL_checknumber(L, 1), lauxlib.luaL_checknumber(L, 2)));
    return 1;
  },
  ldexp: (L) => {
    lua.lua_pushnumber(L, goLdexp(lauxlib.luaL_checknumber(L, 1), goIntArg(L, 2)));
    return 1;
  },
  frexp: (L) => {
    const [m, e] = goFrexp(lauxlib.luaL_checknumber(L, 1));
    lua.lua_pushnumber(L, m);
    lua.lua_pushnumber(L, e);
    return 2;
  },
  // gopher-lua's math.mod is luaModulo (the sign follows the divisor, like `%`), not fmod.
  mod: (L) => {
    const divisor = lauxlib.luaL_checknumber(L, 2);
    let result = lauxlib.luaL_checknumber(L, 1) % divisor;
    if ((divisor > 0 && result < 0) || (divisor < 0 && result > 0)) result += divisor;
    lua.lua_pushnumber(L, result);
    return 1;
  },
};
