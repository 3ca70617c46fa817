// How client-go's JSONPath prints the values it finds: json.Marshal for maps and slices (PrintResults),
// fmt's %v otherwise and in error messages, over the evaluator's model of Go values (values.ts). The
// number and string output is Go's (src/go); this file walks the values and bounds the text.
import { goSprintFloat } from '../go/fmt.ts';
import { goJsonFloat, goJsonString } from '../go/json.ts';
import { wellFormed } from '../go/utf8.ts';
import { GoByte, GoInt, INVALID, isJsonMap, sortedMapKeys, type GoValue } from './values.ts';

/** Text written piece by piece that refuses to grow past `limit` characters. */
export class BoundedText {
  private readonly parts: string[] = [];
  private size = 0;
  private readonly limit: number;
  private readonly onFull: () => Error;

  /** `onFull` makes the error thrown when a piece would pass the limit. */
  constructor(limit: number, onFull: () => Error) {
    this.limit = limit;
    this.onFull = onFull;
  }

  get length(): number {
    return this.size;
  }

  write(piece: string): void {
    if (this.size + piece.length > this.limit) {
      const room = this.limit - this.size;
      if (room > 0) this.parts.push(piece.slice(0, room));
      this.size = this.limit;
      throw this.onFull();
    }
    this.parts.push(piece);
    this.size += piece.length;
  }

  toString(): string {
    return this.parts.join('');
  }
}

/** json.Marshal of a value decoded into interface{}: compact, map keys sorted. */
export function marshalGoJson(value: GoValue): string {
  const out = new BoundedText(Infinity, () => new Error('unreachable'));
  writeGoJson(value, out);
  return out.toString();
}

/** marshalGoJson into `out`, so a bounded writer stops a large value early. */
export function writeGoJson(value: GoValue, out: BoundedText): void {
  if (value === null || value === undefined || value === INVALID) return out.write('null');
  if (value instanceof GoInt) return out.write(value.value.toString());
  if (value instanceof GoByte) return out.write(String(value.value));
  if (Array.isArray(value)) {
    out.write('[');
    value.forEach((item, i) => {
      if (i > 0) out.write(',');
      writeGoJson(item, out);
    });
    return out.write(']');
  }
  if (isJsonMap(value)) {
    out.write('{');
    sortedMapKeys(value).forEach((key, i) => {
      out.write(i > 0 ? `,${goJsonString(key)}:` : `${goJsonString(key)}:`);
      writeGoJson(value[key], out);
    });
    return out.write('}');
  }
  switch (typeof value) {
    case 'string':
      return out.write(goJsonString(value));
    case 'number':
      return out.write(goJsonFloat(value));
    case 'boolean':
      return out.write(value ? 'true' : 'false');
    default:
      throw new Error(`json: unsupported type: ${typeof value}`);
  }
}

class TextFull extends Error {}

/**
 * fmt's %v of an interface{} value (and of a reflect.Value holding one), as in error messages. With a
 * `limit`, the text stops there and ends in "..." (client-go prints the whole value).
 */
export function sprintGoValue(value: GoValue, limit = Infinity): string {
  const out = new BoundedText(limit, () => new TextFull());
  try {
    writeGoValue(value, out);
  } catch (error) {
    if (!(error instanceof TextFull)) throw error;
    return `${out.toString()}...`;
  }
  return out.toString();
}

function writeGoValue(value: GoValue, out: BoundedText): void {
  if (value === INVALID) return out.write('<invalid reflect.Value>');
  if (value === null || value === undefined) return out.write('<nil>');
  if (value instanceof GoInt) return out.write(value.value.toString());
  if (value instanceof GoByte) return out.write(String(value.value));
  if (Array.isArray(value)) {
    out.write('[');
    value.forEach((item, i) => {
      if (i > 0) out.write(' ');
      writeGoValue(item, out);
    });
    return out.write(']');
  }
  if (isJsonMap(value)) {
    out.write('map[');
    sortedMapKeys(value).forEach((key, i) => {
      out.write(i > 0 ? ` ${wellFormed(key)}:` : `${wellFormed(key)}:`);
      writeGoValue(value[key], out);
    });
    return out.write(']');
  }
  if (typeof value === 'number') return out.write(goSprintFloat(value));
  if (typeof value === 'string') return out.write(wellFormed(value));
  return out.write(String(value));
}
