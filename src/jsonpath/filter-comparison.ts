// The comparison functions client-go's filters use: text/template's eq/lt/le/gt/ge/ne, forked into
// k8s.io/client-go/third_party/forked/golang/template/funcs.go. Types must match exactly: a JSON
// number (float64) compared with an integer literal (Go int) is "incompatible types for comparison";
// write `2.0`, not `2`. Strings compare by bytes, booleans only for (in)equality.

import { compareGoStrings } from '../go/utf8.ts';
import { GoByte, GoInt, type GoValue } from './values.ts';

type BasicKind = 'bool' | 'int' | 'uint' | 'float' | 'string';

export class ComparisonError extends Error {}

const BAD_TYPE = 'invalid type for comparison';
const BAD_COMPARISON = 'incompatible types for comparison';

function basicKind(value: GoValue): BasicKind {
  if (value instanceof GoInt) return 'int';
  if (value instanceof GoByte) return 'uint';
  switch (typeof value) {
    case 'boolean':
      return 'bool';
    case 'number':
      return 'float';
    case 'string':
      return 'string';
  }
  // nil (JSON null), maps, slices and the invalid value have no basic kind.
  throw new ComparisonError(BAD_TYPE);
}

function intOf(value: GoValue): bigint {
  if (value instanceof GoInt) return value.value;
  return BigInt((value as GoByte).value);
}

export function goEqual(left: GoValue, right: GoValue): boolean {
  const k1 = basicKind(left);
  const k2 = basicKind(right);
  if (k1 !== k2) {
    // Integers of either signedness compare by value.
    if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int')) return intOf(left) === intOf(right);
    throw new ComparisonError(BAD_COMPARISON);
  }
  if (k1 === 'int' || k1 === 'uint') return intOf(left) === intOf(right);
  return left === right;
}

export function goLess(left: GoValue, right: GoValue): boolean {
  const k1 = basicKind(left);
  const k2 = basicKind(right);
  if (k1 !== k2) {
    if ((k1 === 'int' && k2 === 'uint') || (k1 === 'uint' && k2 === 'int')) return intOf(left) < intOf(right);
    throw new ComparisonError(BAD_COMPARISON);
  }
  switch (k1) {
    case 'bool':
      throw new ComparisonError(BAD_TYPE);
    case 'int':
    case 'uint':
      return intOf(left) < intOf(right);
    case 'string':
      return compareGoStrings(left as string, right as string) < 0;
    default:
      return (left as number) < (right as number);
  }
}

/** Evaluates a filter operator; throws ComparisonError with the Go message. */
export function compareGo(operator: string, left: GoValue, right: GoValue): boolean {
  switch (operator) {
    case '<':
      return goLess(left, right);
    case '>':
      return !(goLess(left, right) || goEqual(left, right));
    case '==':
      return goEqual(left, right);
    case '!=':
      return !goEqual(left, right);
    case '<=':
      return goLess(left, right) || goEqual(left, right);
    case '>=':
      return !goLess(left, right);
    default:
      throw new ComparisonError(`unrecognized filter operator ${operator}`);
  }
}
