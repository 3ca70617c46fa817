// gopher-lua's math library where it is not fengari's (mathlib.go): floats from floor/ceil, Go's math
// functions (go-math.ts: sin, exp, log, pow... as Go computes them on amd64; modf, fmod), Lua 5.1 names
// (atan2, cosh, log10, mod...), max/min on numbers.
import { goModf } from '../../go/math.ts';
import { goAcos, goAsin, goAtan, goAtan2, goCos, goCosh, goExp, goFrexp, goLdexp, goLog, goLog10, goMathPow, goSin, goSinh, goTan, goTanh } from './go-math.ts';
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
  // Go's own algorithms (go-math.ts): JavaScript's differ in the last bit, which tostring prints.
  sin: number1(goSin),
  cos: number1(goCos),
  tan: number1(goTan),
  asin: number1(goAsin),
  acos: number1(goAcos),
  atan: number1(goAtan),
  atan2: (L) => {
    lua.lua_pushnumber(L, goAtan2(lauxlib.luaL_checknumber(L, 1), lauxlib.luaL_checknumber(L, 2)));
    return 1;
  },
  cosh: number1(goCosh),
  sinh: number1(goSinh),
  tanh: number1(goTanh),
  exp: number1(goExp),
  log10: number1(goLog10),
  // One argument: gopher-lua ignores a second (fengari's would be the base).
  log: number1(goLog),
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
    lua.lua_pushnumber(L, goMathPow(lauxlib.luaL_checknumber(L, 1), lauxlib.luaL_checknumber(L, 2)));
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
