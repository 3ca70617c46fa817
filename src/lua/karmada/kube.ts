// Karmada's `kube` Lua module (luavm/kube.go): quantity arithmetic and pod-template helpers backed by
// the same exact Kubernetes code the TypeScript modules use (src/k8s).
import { guardAllocation, lua, to_luastring } from '../engine/index.ts';
import { Quantity } from '../../k8s/quantity.ts';
import { karmadaPodDependencies } from '../../k8s/pod-dependencies.ts';
import { karmadaPodRequirements } from '../../k8s/pod-requirements.ts';
import { encodeLuaValueDroppingEmptyTables, pushJson } from './convert.ts';
import { lazyResultsMetaRef, pushLazyJson } from './lazy.ts';
import { raise, typeErrorIn, type CFunction } from '../gopher/args.ts';
import { luaNumberToString } from '../gopher/numbers.ts';

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** checkResourceQuantity: nil is zero, a string is resource.MustParse'd, anything else is a type error. */
function checkQuantity(L: any, arg: number, fn: string): Quantity {
  switch (lua.lua_type(L, arg)) {
    case lua.LUA_TNIL:
    case lua.LUA_TNONE:
      return Quantity.zero();
    case lua.LUA_TSTRING: {
      const bytes = lua.lua_tolstring(L, arg) as Uint8Array;
      guardAllocation(L, 2 * bytes.length); // its text: two bytes a character at most
      const text = utf8.decode(bytes);
      try {
        return Quantity.parseStrict(text);
      } catch (err) {
        // MustParse's panic text, with the echoed input cut short (the error quotes it again, cut too).
        const shown = text.length <= 64 ? text : `${text.slice(0, 64)}...`;
        return raise(L, `cannot parse '${shown}': ${(err as Error).message}`);
      }
    }
    default:
      return typeErrorIn(L, arg, fn, 'string');
  }
}

const resourceAdd: CFunction = (L) => {
  let sum = Quantity.zero();
  for (let i = 1, n = lua.lua_gettop(L); i <= n; i++) sum = sum.add(checkQuantity(L, i, 'resourceAdd'));
  lua.lua_pushstring(L, to_luastring(sum.toString()));
  return 1;
};

const getResourceQuantity: CFunction = (L) => {
  if (lua.lua_gettop(L) !== 1) raise(L, 'getResourceQuantity only accepts one argument');
  const value = checkQuantity(L, 1, 'getResourceQuantity').asApproximateFloat64();
  if (value < 0) raise(L, `getResourceQuantity does not accept negative quantity ${luaNumberToString(value)}`);
  if (value === Infinity) raise(L, 'getResourceQuantity does not accept infinite quantity');
  lua.lua_pushnumber(L, value);
  return 1;
};

/**
 * A helper's result (fresh JSON from src/k8s), as Karmada's gopher-json decoding gives it: lazily like
 * call arguments (a script usually returns it as it is, and the encoder then reads the JS value directly),
 * or eagerly in a runtime made with eagerConversion (the reference).
 */
function pushResult(L: any, value: unknown): void {
  const metaRef = lazyResultsMetaRef(L);
  if (metaRef === undefined) pushJson(L, value);
  else pushLazyJson(L, value, metaRef);
}

/** ConvertLuaResultInto(table, &corev1.PodTemplateSpec{}): encoded, empty tables dropped (no references). */
function podTemplateArgument(L: any, fn: string, target: string): Record<string, unknown> {
  if (lua.lua_type(L, 1) !== lua.LUA_TTABLE) typeErrorIn(L, 1, fn, 'table');
  let converted: unknown;
  try {
    converted = encodeLuaValueDroppingEmptyTables(L, 1, true); // = repairEmptyTables(encodeLuaValue(L, 1), true)
  } catch (err) {
    if (!(err instanceof Error)) throw err; // a Lua error (the memory limit, raised while encoding) goes on as it is
    raise(L, `fail to convert lua value to ${target}: encode lua result to json failed: ${err.message}`);
  }
  if (Array.isArray(converted)) {
    raise(L, `fail to convert lua value to ${target}: json unmarshal obj failed: json: cannot unmarshal array into Go value of type v1.PodTemplateSpec`);
  }
  return converted as Record<string, unknown>;
}

/**
 * Runs a pod-template helper; what it rejects (e.g. an invalid quantity) is a conversion error in
 * Karmada (typed PodTemplateSpec decoding), so it becomes a Lua error a script can pcall, not a JS crash.
 */
function fromTemplate<T>(L: any, target: string, compute: () => T): T {
  try {
    return compute();
  } catch (err) {
    return raise(L, `fail to convert lua value to ${target}: json unmarshal obj failed: ${(err as Error).message}`);
  }
}

const accuratePodRequirements: CFunction = (L) => {
  if (lua.lua_gettop(L) !== 1) raise(L, 'getPodRequirements only accepts one argument');
  const template = podTemplateArgument(L, 'accuratePodRequirements', 'PodTemplateSpec');
  pushResult(L, fromTemplate(L, 'PodTemplateSpec', () => karmadaPodRequirements(template)) ?? null);
  return 1;
};

const getPodDependencies: CFunction = (L) => {
  if (lua.lua_gettop(L) !== 2) raise(L, 'getPodDependencies only accepts two argument');
  const template = podTemplateArgument(L, 'getPodDependencies', 'corev1.PodTemplateSpec');
  let namespace: string;
  switch (lua.lua_type(L, 2)) {
    case lua.LUA_TNIL:
      namespace = 'default';
      break;
    case lua.LUA_TSTRING: {
      const bytes = lua.lua_tolstring(L, 2) as Uint8Array;
      guardAllocation(L, 2 * bytes.length);
      namespace = utf8.decode(bytes);
      break;
    }
    case lua.LUA_TNUMBER:
      namespace = luaNumberToString(lua.lua_tonumber(L, 2));
      break;
    default:
      return typeErrorIn(L, 2, 'getPodDependencies', 'string');
  }
  const dependencies = fromTemplate(L, 'corev1.PodTemplateSpec', () => karmadaPodDependencies(template, namespace));
  // Go marshals a nil slice as null, which gopher-json decodes to nil.
  pushResult(L, dependencies.length === 0 ? null : dependencies);
  return 1;
};

const KUBE_FUNCTIONS: Record<string, CFunction> = { resourceAdd, accuratePodRequirements, getPodDependencies, getResourceQuantity };

/** package.preload.kube: returns a fresh module table. */
export const openKube: CFunction = (L) => {
  lua.lua_createtable(L, 0, Object.keys(KUBE_FUNCTIONS).length);
  for (const [name, fn] of Object.entries(KUBE_FUNCTIONS)) {
    lua.lua_pushcfunction(L, fn);
    lua.lua_setfield(L, -2, to_luastring(name));
  }
  return 1;
};
