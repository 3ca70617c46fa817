// JSON values as Karmada holds them after Go's encoding/json decoded the request. JSON.parse keeps an
// escaped lone surrogate ("\ud800") as it is; Go decodes it to one U+FFFD (golang/go
// src/encoding/json/decode.go, unquoteBytes: `if utf16.IsSurrogate(rr)` … "Invalid surrogate; fall back
// to replacement rune"), exactly what String.prototype.toWellFormed does to each unpaired surrogate.
// Everything else (a leading U+FEFF included) Go keeps as sent.
import { setOwn } from '../interpreter/copy.ts';

/** A string's text as Go decodes it: itself unless it holds a lone surrogate. */
export function goText(text: string): string {
  return isWellFormed(text) ? text : toWellFormed(text);
}

/** Requests nest at most this deep (the server refuses deeper ones); below it values are left as they are. */
const MAX_DEPTH = 1000;

/**
 * `value` as Go decodes it: the same value (the same objects) when every string and key is already what
 * Go makes of it, else a copy of the containers on the way to the strings that change. Two keys that
 * decode to the same text are one key, the later one winning (a Go map assignment per key, in order).
 */
export function goDecoded<T>(value: T): T {
  return decodedValue(value, 0) as T;
}

function decodedValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return goText(value);
  if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as unknown;
      const decoded = decodedValue(item, depth + 1);
      if (decoded !== item && out === undefined) out = value.slice(0, i);
      out?.push(decoded);
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const item = record[key];
    const decodedKey = goText(key);
    const decoded = decodedValue(item, depth + 1);
    if ((decodedKey !== key || decoded !== item) && out === undefined) {
      out = {};
      for (let j = 0; j < i; j++) setOwn(out, keys[j], record[keys[j]]);
    }
    if (out !== undefined) {
      // A key met again moves to its last place, as the later assignment wins.
      if (decodedKey !== key) delete out[decodedKey];
      setOwn(out, decodedKey, decoded);
    }
  }
  return out ?? value;
}

// String.prototype.isWellFormed / toWellFormed are in Node 20; the project's TS lib predates them.
type WellFormed = string & { isWellFormed(): boolean; toWellFormed(): string };
const isWellFormed = (text: string): boolean => (text as WellFormed).isWellFormed();
const toWellFormed = (text: string): string => (text as WellFormed).toWellFormed();
