// Karmada's convertEmptySliceToEmptyStructPartly (luavm/lua_convert.go): each `[]` in a result (gopher-json's
// encoding of any empty table) becomes `{}`, stays or is deleted, by what a reference object holds at its path.

import { setOwn } from '../../interpreter/copy.ts';

// Karmada looks up each `[]` by its field path without array indices: an empty object at that path in a
// reference object turns it into `{}`, an empty array keeps it, anything else deletes it. Decisions are
// taken on the original encoding in one pass, so a parent emptied by deletions stays (as `{}` or `[]`).
// Paths are compared as key lists, which is what Karmada intends (its dotted strings mis-handle keys
// containing "." or ":").

type Json = unknown;

function isPlainObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pathKey(path: readonly string[]): string {
  return JSON.stringify(path);
}

// `path` is one array pushed and popped along the walk (copying it per key dominated the cost); it is
// only turned into a key where an empty value is found.

function collectEmptyFields(value: Json, path: string[], emptyArrays: Set<string>, emptyObjects: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) visitReferenceChild(item, path, emptyArrays, emptyObjects);
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      path.push(key);
      visitReferenceChild(value[key], path, emptyArrays, emptyObjects);
      path.pop();
    }
  }
}

function visitReferenceChild(item: Json, path: string[], emptyArrays: Set<string>, emptyObjects: Set<string>): void {
  if (Array.isArray(item) && item.length === 0) emptyArrays.add(pathKey(path));
  else if (isPlainObject(item) && Object.keys(item).length === 0) emptyObjects.add(pathKey(path));
  else collectEmptyFields(item, path, emptyArrays, emptyObjects);
}

/** What an empty table at `path` becomes: `{}`, `[]`, or deleted (undefined). */
type Decide = (path: string[]) => Json | undefined;

// The encoded value is fresh (built by the encoder for this result), so an unchanged subtree is
// returned as it is; a container is copied only from its first changed child on.
function repairChildren(value: Json, path: string[], decide: Decide): Json {
  if (Array.isArray(value)) {
    let out: Json[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const repaired = repairChild(item, path, decide);
      if (out === undefined && repaired !== item) out = value.slice(0, i);
      if (out !== undefined && repaired !== undefined) out.push(repaired);
    }
    return out ?? value;
  }
  if (isPlainObject(value)) {
    let out: Record<string, Json> | undefined;
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const item = value[key];
      path.push(key);
      const repaired = repairChild(item, path, decide);
      path.pop();
      if (out === undefined && repaired !== item) {
        out = {};
        for (let j = 0; j < i; j++) setOwn(out, keys[j]!, value[keys[j]!]);
      }
      if (out !== undefined && repaired !== undefined) setOwn(out, key, repaired);
    }
    return out ?? value;
  }
  return value;
}

function repairChild(item: Json, path: string[], decide: Decide): Json | undefined {
  if (Array.isArray(item) && item.length === 0) return decide(path);
  return repairChildren(item, path, decide);
}

/**
 * @param encoded the gopher-json encoding of a Lua result (empty tables are `[]`); unchanged parts are
 *   returned as they are, so the result shares them
 * @param targetIsStruct whether Karmada decodes into a struct (objects, requirements, raw status)
 *   rather than a slice (components, dependencies): a whole-result `[]` then becomes `{}`
 * @param references the objects whose empty fields tell `{}` from `[]` (Retain: desired and observed;
 *   ReviseReplica: the input object; everything else: none)
 */
export function repairEmptyTables(encoded: Json, targetIsStruct: boolean, references: readonly Json[] = []): Json {
  if (Array.isArray(encoded) && encoded.length === 0) return targetIsStruct ? {} : [];
  if (references.length === 0) return repairChildren(encoded, [], () => undefined);
  // The references are whole objects and a result usually has few empty tables: look up the paths
  // asked for (once each) instead of collecting every empty field of the references up front, unless
  // many are asked for (then collecting once is cheaper than walking the references per path).
  const asked = new Map<string, Json | undefined>();
  let collected: { emptyArrays: Set<string>; emptyObjects: Set<string> } | undefined;
  return repairChildren(encoded, [], (path) => {
    const key = pathKey(path);
    if (collected === undefined && asked.size >= LOOKUPS_BEFORE_COLLECTING) {
      collected = { emptyArrays: new Set(), emptyObjects: new Set() };
      for (const reference of references) collectEmptyFields(reference, [], collected.emptyArrays, collected.emptyObjects);
    }
    if (collected !== undefined) {
      if (collected.emptyObjects.has(key)) return {};
      if (collected.emptyArrays.has(key)) return [];
      return undefined;
    }
    if (!asked.has(key)) asked.set(key, emptyFieldAt(references, path));
    const decision = asked.get(key);
    // A fresh value per use, as the collected sets give.
    return decision === undefined ? undefined : Array.isArray(decision) ? [] : {};
  });
}

const LOOKUPS_BEFORE_COLLECTING = 16;

/** What collectEmptyFields would record for `path` over `references`: `{}`, else `[]`, else undefined. */
function emptyFieldAt(references: readonly Json[], path: readonly string[]): Json | undefined {
  const found = { object: false, array: false };
  for (const reference of references) descend(reference, path, 0, found);
  return found.object ? {} : found.array ? [] : undefined;
}

// descend/child walk the references as collectEmptyFields/visitReferenceChild do, but only along
// `path` (array elements all share their array's path, as there).
function descend(node: Json, path: readonly string[], i: number, found: { object: boolean; array: boolean }): void {
  if (Array.isArray(node)) {
    for (const item of node) child(item, path, i, found);
  } else if (isPlainObject(node) && i < path.length && Object.hasOwn(node, path[i]!)) {
    child(node[path[i]!], path, i + 1, found);
  }
}

function child(item: Json, path: readonly string[], i: number, found: { object: boolean; array: boolean }): void {
  if (Array.isArray(item) && item.length === 0) {
    if (i === path.length) found.array = true;
  } else if (isPlainObject(item) && Object.keys(item).length === 0) {
    if (i === path.length) found.object = true;
  } else {
    descend(item, path, i, found);
  }
}
