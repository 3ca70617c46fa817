// Deep copies of JSON values (what a request body decodes to), for the private copies interpreters
// receive. Hand-written because the general tools get JSON keys wrong or cost far more: rfdc assigns
// every key with `=`, so a key "__proto__" (legal in JSON, kept by JSON.parse as an own property)
// becomes the copy's prototype, and structuredClone runs V8's serializer (bench/README.md).

/** A deep copy of a JSON value; objects and arrays are new, everything else is shared. */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  // for...in rather than Object.keys: no key array per object (JSON objects have no inherited keys).
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    setOwn(out, key, copyJson((value as Record<string, unknown>)[key]));
  }
  return out as T;
}

/** `object[key] = value`, except that a key "__proto__" (legal in JSON, Karmada's Go maps keep it) stays an ordinary key. */
export function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}
