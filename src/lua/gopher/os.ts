// Karmada's safe os library (pkg/util/lifted/lua/oslib_safe.go, from Argo CD / gopher-lua): only
// os.time and os.date, with its strftime subset mapped onto Go time layouts. Ported with its quirks
// (%a prints "mon" because "mon" is not a Go layout token; a second argument to os.date drops "!").
import { guardAllocation, lua, lauxlib, to_luastring } from '../engine/index.ts';
import { pushBytes, type CFunction } from './args.ts';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  min: number;
  sec: number;
  wday: number;
  offsetMin: number;
  utc: boolean;
}

function partsOf(date: Date, utc: boolean): Parts {
  return utc
    ? {
        year: date.getUTCFullYear(),
        month: date.getUTCMonth() + 1,
        day: date.getUTCDate(),
        hour: date.getUTCHours(),
        min: date.getUTCMinutes(),
        sec: date.getUTCSeconds(),
        wday: date.getUTCDay(),
        offsetMin: 0,
        utc,
      }
    : {
        year: date.getFullYear(),
        month: date.getMonth() + 1,
        day: date.getDate(),
        hour: date.getHours(),
        min: date.getMinutes(),
        sec: date.getSeconds(),
        wday: date.getDay(),
        offsetMin: -date.getTimezoneOffset(),
        utc,
      };
}

const two = (n: number) => String(n).padStart(2, '0');

function zoneOffset(p: Parts): string {
  const sign = p.offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(p.offsetMin);
  return `${sign}${two(Math.floor(abs / 60))}${two(abs % 60)}`;
}

function zoneName(p: Parts): string {
  // Go prints the zone abbreviation; for UTC (and zero offset) that is "UTC", otherwise the offset.
  return p.utc || p.offsetMin === 0 ? 'UTC' : zoneOffset(p);
}

const FLAGS: Record<string, (p: Parts) => string> = {
  a: () => 'mon',
  A: (p) => DAYS[p.wday],
  b: (p) => MONTHS[p.month - 1].slice(0, 3),
  B: (p) => MONTHS[p.month - 1],
  c: (p) => `${two(p.day)} ${MONTHS[p.month - 1].slice(0, 3)} ${two(p.year % 100)} ${two(p.hour)}:${two(p.min)} ${zoneName(p)}`,
  d: (p) => two(p.day),
  F: (p) => `${String(p.year).padStart(4, '0')}-${two(p.month)}-${two(p.day)}`,
  H: (p) => two(p.hour),
  I: (p) => two(p.hour % 12 === 0 ? 12 : p.hour % 12),
  m: (p) => two(p.month),
  M: (p) => two(p.min),
  p: (p) => (p.hour >= 12 ? 'PM' : 'AM'),
  P: (p) => (p.hour >= 12 ? 'pm' : 'am'),
  S: (p) => two(p.sec),
  x: (p) => `${two(p.hour)}/${two(p.min)}/${two(p.sec)}`,
  X: (p) => `${two(p.hour)}:${two(p.min)}:${two(p.sec)}`,
  y: (p) => two(p.year % 100),
  Y: (p) => String(p.year).padStart(4, '0'),
  z: (p) => zoneOffset(p),
  Z: (p) => zoneName(p),
  w: (p) => String(p.wday),
};

const PERCENT = 0x25;
const BANG = 0x21;
const DEFAULT_DATE_FORMAT = to_luastring('%c');

/**
 * oslib_safe.go strftime, including its flag scanner (a trailing lone "%" is literal), over the format's
 * bytes as Go scans them. Each flag expands to a few characters, so the result can be ten times as long
 * as the format (which has no length limit): its length is computed first and given to `reserve`
 * before it is made.
 */
export function strftime(p: Parts, format: Uint8Array, reserve: (bytes: number) => void = () => undefined): Uint8Array {
  const expansions = new Map<number, Uint8Array>();
  const expand = (flag: number): Uint8Array => {
    let bytes = expansions.get(flag);
    if (bytes === undefined) {
      const text = FLAGS[String.fromCharCode(flag)]?.(p);
      bytes = text === undefined ? Uint8Array.of(PERCENT, flag) : to_luastring(text);
      expansions.set(flag, bytes);
    }
    return bytes;
  };
  const scan = (emit: (bytes: Uint8Array | number) => void): void => {
    for (let i = 0; i < format.length; i++) {
      const c = format[i]!;
      if (c === PERCENT && format[i + 1] === PERCENT) {
        emit(PERCENT);
        i++;
      } else if (c === PERCENT && i < format.length - 1) {
        emit(expand(format[++i]!));
      } else {
        emit(c);
      }
    }
  };
  let length = 0;
  scan((piece) => (length += typeof piece === 'number' ? 1 : piece.length));
  reserve(length);
  const out = new Uint8Array(length);
  let at = 0;
  scan((piece) => {
    if (typeof piece === 'number') out[at++] = piece;
    else {
      out.set(piece, at);
      at += piece.length;
    }
  });
  return out;
}

function intField(L: any, key: string, fallback: number): number {
  lua.lua_getfield(L, 1, to_luastring(key));
  const value = lua.lua_type(L, -1) === lua.LUA_TNUMBER ? Math.trunc(lua.lua_tonumber(L, -1)) : fallback;
  lua.lua_pop(L, 1);
  return value;
}

const osTime: CFunction = (L) => {
  if (lua.lua_gettop(L) === 0) {
    lua.lua_pushnumber(L, Math.floor(Date.now() / 1000));
    return 1;
  }
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  // time.Date(year, month, day, hour, min, sec, 0, time.Local) normalises out-of-range values; Date
  // does too once two-digit years are avoided (setFullYear) and the clock is set after the date.
  const date = new Date(2000, 0, 1);
  date.setFullYear(intField(L, 'year', -1), intField(L, 'month', -1) - 1, intField(L, 'day', -1));
  date.setHours(intField(L, 'hour', 12), intField(L, 'min', 0), intField(L, 'sec', 0), 0);
  lua.lua_pushnumber(L, Math.floor(date.getTime() / 1000));
  return 1;
};

const osDate: CFunction = (L) => {
  let date = new Date();
  let utc = false;
  let format = DEFAULT_DATE_FORMAT;
  if (lua.lua_gettop(L) >= 1) {
    format = lauxlib.luaL_checklstring(L, 1);
    if (format[0] === BANG) {
      utc = true;
      let start = 0;
      while (format[start] === BANG) start++;
      format = format.subarray(start);
    }
    if (lua.lua_gettop(L) >= 2) {
      date = new Date(Math.trunc(lauxlib.luaL_checknumber(L, 2)) * 1000);
      utc = false; // time.Unix(...) is local time, whatever "!" said
    }
    if (format[0] === 0x2a /* * */ && format[1] === 0x74 /* t */) {
      const p = partsOf(date, utc);
      lua.lua_createtable(L, 0, 9);
      for (const [key, value] of [
        ['year', p.year],
        ['month', p.month],
        ['day', p.day],
        ['hour', p.hour],
        ['min', p.min],
        ['sec', p.sec],
        ['wday', p.wday + 1],
        ['yday', 0],
      ] as const) {
        lua.lua_pushnumber(L, value);
        lua.lua_setfield(L, -2, to_luastring(key));
      }
      lua.lua_pushboolean(L, false);
      lua.lua_setfield(L, -2, to_luastring('isdst'));
      return 1;
    }
  }
  pushBytes(
    L,
    strftime(partsOf(date, utc), format, (bytes) => guardAllocation(L, bytes)),
  );
  return 1;
};

export const OS_FUNCTIONS: Record<string, CFunction> = { time: osTime, date: osDate };
