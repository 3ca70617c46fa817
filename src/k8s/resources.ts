// corev1.ResourceList helpers over canonical quantity strings, with exact Quantity arithmetic.

import { InterpreterError } from '../interpreter/types.ts';
import { Quantity, QuantityParseError, quoteForMessage } from './quantity.ts';

/** corev1.ResourceList as JSON: resource name -> quantity string ("100m", "1Gi"). */
export type ResourceList = Record<string, string>;

/** A ResourceList as it may arrive in a manifest (JSON numbers are valid quantities too). */
export type ResourceListInput = Record<string, string | number | null | undefined>;

/** A quantity of the request; one Kubernetes would refuse answers 400 (a message Karmada logs). */
function parseEntry(name: string, value: string | number): Quantity {
  try {
    return Quantity.parse(value);
  } catch (err) {
    if (!(err instanceof QuantityParseError)) throw err;
    throw new InterpreterError(400, `resource ${quoteForMessage(name)}: ${err.message}`);
  }
}

function combine(a: ResourceListInput | undefined, b: ResourceListInput | undefined, pick: (x: Quantity, y: Quantity) => Quantity): ResourceList {
  const result: ResourceList = {};
  const left = a ?? {};
  const right = b ?? {};
  for (const name of new Set([...Object.keys(left), ...Object.keys(right)])) {
    const x = left[name];
    const y = right[name];
    const hasX = x !== undefined && x !== null;
    const hasY = y !== undefined && y !== null;
    if (hasX && hasY) result[name] = pick(parseEntry(name, x), parseEntry(name, y)).toString();
    else if (hasX) result[name] = parseEntry(name, x).toString();
    else if (hasY) result[name] = parseEntry(name, y).toString();
  }
  return result;
}

/**
 * Per-resource sum (Kubernetes' addResourceList): names in either list; the sum keeps the format of
 * `a`'s quantity (Quantity.Add). Values are re-printed canonically. Throws InterpreterError(400) on an invalid quantity.
 */
export function addResourceLists(a: ResourceListInput | undefined, b: ResourceListInput | undefined): ResourceList {
  return combine(a, b, (x, y) => x.add(y));
}

/** Per-resource maximum (Kubernetes' maxResourceList); on a tie `a`'s spelling is kept. */
export function maxResourceLists(a: ResourceListInput | undefined, b: ResourceListInput | undefined): ResourceList {
  return combine(a, b, (x, y) => x.max(y));
}

/**
 * maxResourceLists folded over many lists in one pass: each value is parsed once and the maxima printed at
 * the end, so the work grows with the total number of entries, not with lists × resource names.
 */
export function maxOfResourceLists(lists: Iterable<ResourceListInput | undefined>): ResourceList {
  const maxima = new Map<string, Quantity>();
  for (const list of lists) {
    for (const [name, value] of Object.entries(list ?? {})) {
      if (value === undefined || value === null) continue;
      const quantity = parseEntry(name, value);
      const current = maxima.get(name);
      maxima.set(name, current === undefined ? quantity : current.max(quantity));
    }
  }
  const result: ResourceList = {};
  for (const [name, quantity] of maxima) result[name] = quantity.toString();
  return result;
}

/** Every value re-printed in Kubernetes' canonical form (`{cpu: "1000m"}` -> `{cpu: "1"}`). */
export function canonicalResourceList(list: ResourceListInput | undefined): ResourceList {
  return combine(list, undefined, (x) => x);
}

/** Quantity-aware equality of two lists (same names, equal values). */
export function resourceListsEqual(a: ResourceListInput | undefined, b: ResourceListInput | undefined): boolean {
  const left = canonicalResourceList(a);
  const right = canonicalResourceList(b);
  const names = Object.keys(left);
  if (names.length !== Object.keys(right).length) return false;
  return names.every((name) => name in right && Quantity.parse(left[name]).equals(Quantity.parse(right[name])));
}
