// Small value helpers shared by the XlineCluster operations.
import { isDeepStrictEqual } from 'node:util';

/** The one value every entry carries, or undefined when any is missing, empty or different. */
export function unanimous(values: unknown[]): unknown {
  if (values.length === 0) return undefined;
  const [first] = values;
  if (first === undefined || first === null || first === '') return undefined;
  return values.every((v) => isDeepStrictEqual(v, first)) ? first : undefined;
}

export const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
