// Small value helpers shared by the XlineCluster operations.

/**
 * The one value every entry carries, or undefined when any is missing, empty or different. Values are
 * compared by `key` (a string for what may be compared, undefined for what may not), never by a deep
 * walk of request data.
 */
export function unanimous(values: unknown[], key: (value: unknown) => string | undefined = primitiveKey): unknown {
  if (values.length === 0) return undefined;
  const first = key(values[0]);
  if (first === undefined) return undefined;
  return values.every((v) => key(v) === first) ? values[0] : undefined;
}

/** A non-empty string or a number, as itself. */
export function primitiveKey(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : `s:${value}`;
  if (typeof value === 'number') return `n:${value}`;
  return undefined;
}

/** An object reference `{name, namespace}` (the operator's statefulSetRef and serviceRef). */
export function objectRefKey(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { name, namespace, ...rest } = value as Record<string, unknown>;
  if (typeof name !== 'string' || name === '' || Object.keys(rest).length > 0) return undefined;
  if (namespace !== undefined && typeof namespace !== 'string') return undefined;
  return JSON.stringify([namespace ?? '', name]);
}

export const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
