// How the evaluator models Go's reflect.Values over data decoded by encoding/json into interface{}.
//
// JSON values stay plain JavaScript values (numbers are float64, `null` is a nil interface{} held in
// a map or slice). Three Go-only values appear besides them:
// - INVALID: the zero reflect.Value, what reflect.ValueOf(nil) gives for a nil root or a nil range item;
// - GoInt: a Go `int` from an integer literal in the template (`{5}`, `[?(@.x > 5)]`);
// - GoByte: a `uint8`, what `.*` and `..` yield when they iterate over a string.

import { compareGoStrings } from '../go/utf8.ts';

export const INVALID: unique symbol = Symbol('invalid reflect.Value');

export class GoInt {
  readonly value: bigint;
  constructor(value: bigint) {
    this.value = value;
  }
}

export class GoByte {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

export type GoValue = unknown;

export type JsonMap = Record<string, unknown>;

export function isJsonMap(value: GoValue): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof GoInt) && !(value instanceof GoByte);
}

/** Own, defined keys only: a template must never reach Object.prototype. */
export function mapEntry(map: JsonMap, key: string): { found: boolean; value?: unknown } {
  if (!Object.prototype.hasOwnProperty.call(map, key) || map[key] === undefined) return { found: false };
  return { found: true, value: map[key] };
}

/** Keys of a map in Go's sorted order (code points = UTF-8 byte order), skipping undefined values. */
export function sortedMapKeys(map: JsonMap): string[] {
  return Object.keys(map)
    .filter((key) => map[key] !== undefined)
    .sort(compareGoStrings);
}

/** reflect.Value.Type().String() for the values this evaluator can meet. */
export function goTypeName(value: GoValue): string {
  if (value instanceof GoInt) return 'int';
  if (value instanceof GoByte) return 'uint8';
  if (Array.isArray(value)) return '[]interface {}';
  if (isJsonMap(value)) return 'map[string]interface {}';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    default:
      return 'interface {}';
  }
}
