// string.format as gopher-lua implements it (stringlib.go strFormat): Go's fmt.Sprintf (src/go/fmt.ts) over
// the Lua values as fmt.Formatters or Stringers. This file is that mapping; the formatting itself is Go's.
import { goSprintf, type ArgPrinter, type Printer } from '../../go/fmt.ts';
import { goInt64 } from '../../go/math.ts';
import { goParseNumber, isGoInteger, luaNumberToString } from './numbers.ts';

// value.go: LNumber.Format and LString.Format re-enter fmt as int64, float64 or string with the same flags;
// LBool, LNilType and the reference types print their String().

export type FormatArg =
  | { type: 'number'; value: number }
  | { type: 'string'; value: string }
  | { type: 'boolean'; value: boolean }
  | { type: 'nil' }
  /** A table, function, thread or userdata: its Go type and its `tostring` (a byte string). */
  | { type: 'other'; goType: string; text: string };

/** LNumber.Format: %q %s of its String(); integer verbs on int64(n); float verbs on float64(n). */
function printLNumber(p: Printer, n: number, verb: string): void {
  switch (verb) {
    case 'q':
    case 's':
      p.printString(luaNumberToString(n), verb);
      return;
    case 'b':
    case 'c':
    case 'd':
    case 'o':
    case 'x':
    case 'X':
    case 'U':
      p.printInt64(goInt64(n), verb);
      return;
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
      p.printFloat64(n, verb);
      return;
    case 'i':
      p.printInt64(goInt64(n), 'd');
      return;
    default:
      if (isGoInteger(n)) p.printInt64(goInt64(n), verb);
      else p.printFloat64(n, verb);
  }
}

/**
 * LString.Format: %d and %i print the string itself when parseNumber accepts it and 0 otherwise (the
 * check is inverted in gopher-lua); every other verb formats the Go string.
 */
function printLString(p: Printer, s: string, verb: string): void {
  if (verb === 'd' || verb === 'i') {
    if (goParseNumber(s) === undefined) printLNumber(p, 0, 'd');
    else p.printString(s, 's');
    return;
  }
  p.printString(s, verb);
}

/** The value badVerb shows: printArg(arg, 'v') with methods off, i.e. by reflection. */
function printReflected(p: Printer, arg: FormatArg): void {
  switch (arg.type) {
    case 'number':
      p.fmtFloat(arg.value, 'g', -1);
      return;
    case 'string':
      p.fmtS(arg.value);
      return;
    case 'boolean':
      p.fmtBoolean(arg.value);
      return;
    case 'nil':
      p.write(p.sharpV ? '&lua.LNilType{}' : '&{}');
      return;
    default:
      p.write(arg.text);
  }
}

function goTypeName(arg: FormatArg): string {
  switch (arg.type) {
    case 'number':
      return 'lua.LNumber';
    case 'string':
      return 'lua.LString';
    case 'boolean':
      return 'lua.LBool';
    case 'nil':
      return '*lua.LNilType';
    default:
      return arg.goType;
  }
}

/** printArg for gopher-lua's value types. */
const luaValues: ArgPrinter<FormatArg> = {
  typeName: goTypeName,
  printArg(p, arg, verb) {
    if (verb === 'T') {
      p.fmtS(goTypeName(arg));
      return;
    }
    if (verb === 'p' && arg.type !== 'other' && arg.type !== 'nil') {
      p.badVerb(verb, goTypeName(arg), () => printReflected(p, arg));
      return;
    }
    if (verb === 'w') {
      // only Errorf wraps errors
      p.badVerb(verb, goTypeName(arg), () => printReflected(p, arg));
      return;
    }
    switch (arg.type) {
      case 'number':
        printLNumber(p, arg.value, verb);
        return;
      case 'string':
        printLString(p, arg.value, verb);
        return;
      case 'boolean': {
        const text = arg.value ? 'true' : 'false';
        if (!p.sharpV && 'vsxXq'.includes(verb)) {
          p.printString(text, verb);
          return;
        } // Stringer
        if (verb === 't' || verb === 'v') p.fmtBoolean(arg.value);
        else p.badVerb(verb, 'lua.LBool', () => p.fmtBoolean(arg.value));
        return;
      }
      case 'nil':
        if (!p.sharpV && 'vsxXq'.includes(verb)) {
          p.printString('nil', verb);
          return;
        } // Stringer
        printReflected(p, arg); // a pointer to an empty struct
        return;
      default:
        if (!p.sharpV && 'vsxXq'.includes(verb)) {
          p.printString(arg.text, verb);
          return;
        } // Stringer
        p.write(`%!${verb}(${arg.goType})`); // Go would dump the struct's internals
    }
  },
};

/**
 * fmt.Sprintf(format, args...) over Lua values; format and result are byte strings. `reserve` is called
 * before the output grows (Printer.reserve) and may throw (the call's memory budget).
 */
export function luaStringFormat(format: string, args: readonly FormatArg[], reserve?: Printer['reserve']): string {
  return goSprintf(format, args, luaValues, reserve);
}

/**
 * The arguments gopher-lua hands to Sprintf: as many as the format has '%' minus its "%%" pairs
 * (strings.Count, left to right without overlap); the rest are dropped.
 */
export function formatArgumentCount(format: string): number {
  let percent = 0;
  let pairs = 0;
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') continue;
    percent++;
  }
  for (let i = 0; i < format.length - 1; i++) {
    if (format[i] === '%' && format[i + 1] === '%') {
      pairs++;
      i++;
    }
  }
  return percent - pairs;
}
