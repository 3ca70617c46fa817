// JSON Patch (RFC 6902) between the object Karmada sent and the object an interpreter returned,
// encoded the way Karmada decodes `patch` ([]byte): standard, padded base64 of the patch text.
import fastJsonPatch from 'fast-json-patch';
import type { Operation as PatchOperation } from 'fast-json-patch';

export type { PatchOperation };

/**
 * Operations turning `original` into `modified`; [] when nothing changed. Neither input is mutated;
 * the values in the operations are `modified`'s own (shared, not copied).
 *
 * The same operations, in the same order, as fast-json-patch's `compare` (test/server/diff.test.ts
 * checks that on random pairs), written here because `compare` deep-copies every added or replaced
 * value through JSON.stringify/JSON.parse and builds a string key array for every array it visits:
 * ~15 KB of garbage and a third of the request time for a CloneSet AggregateStatus, although our
 * operations are serialized right away. fast-json-patch still applies patches (applyPatch below).
 */
export function diff(original: object, modified: object): PatchOperation[] {
  const ops: PatchOperation[] = [];
  generate(original as Container, modified as Container, ops, new PathStack());
  return ops;
}

type Container = Record<string, unknown> | unknown[];

const hasOwn = (value: object, key: string | number) => Object.prototype.hasOwnProperty.call(value, key);

function escapePathComponent(key: string): string {
  if (key.indexOf('/') === -1 && key.indexOf('~') === -1) return key;
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null;

/**
 * The path being compared, as a stack of keys: a JSON Pointer string is built only for an operation,
 * not for every value visited (most are unchanged).
 */
class PathStack {
  private readonly keys: Array<string | number> = [];
  push(key: string | number): void {
    this.keys.push(key);
  }
  pop(): void {
    this.keys.pop();
  }
  pointer(): string {
    let out = '';
    for (const key of this.keys) out += `/${typeof key === 'number' ? key : escapePathComponent(key)}`;
    return out;
  }
}

/** Descends when both values are containers of the same sort, otherwise replaces when they differ. */
function compareValues(oldValue: unknown, newValue: unknown, ops: PatchOperation[], path: PathStack): void {
  if (isContainer(oldValue) && isContainer(newValue) && Array.isArray(oldValue) === Array.isArray(newValue)) {
    generate(oldValue, newValue, ops, path);
  } else if (oldValue !== newValue) {
    ops.push({ op: 'replace', path: path.pointer(), value: newValue });
  }
}

function generate(mirror: Container, obj: Container, ops: PatchOperation[], path: PathStack): void {
  if (obj === mirror) return;
  if (Array.isArray(mirror) && Array.isArray(obj)) {
    // compare's loops for two arrays, without its string index arrays.
    let deleted = false;
    for (let i = mirror.length - 1; i >= 0; i--) {
      path.push(i);
      if (i < obj.length && i in obj) compareValues(mirror[i], obj[i], ops, path);
      else {
        ops.push({ op: 'remove', path: path.pointer() });
        deleted = true;
      }
      path.pop();
    }
    if (!deleted && obj.length === mirror.length) return;
    for (let i = mirror.length; i < obj.length; i++) {
      if (obj[i] === undefined) continue;
      path.push(i);
      ops.push({ op: 'add', path: path.pointer(), value: obj[i] });
      path.pop();
    }
    return;
  }
  // Objects (and, at the top level only, an object against an array): compare's general loops.
  const record = obj as Record<string, unknown>;
  const old = mirror as Record<string, unknown>;
  const objIsArray = Array.isArray(obj);
  const oldKeys = Object.keys(mirror);
  let deleted = false;
  for (let t = oldKeys.length - 1; t >= 0; t--) {
    const key = oldKeys[t]!;
    const oldValue = old[key];
    path.push(key);
    if (hasOwn(obj, key) && !(record[key] === undefined && oldValue !== undefined && !objIsArray)) {
      compareValues(oldValue, record[key], ops, path);
    } else if (Array.isArray(mirror) === objIsArray) {
      ops.push({ op: 'remove', path: path.pointer() });
      deleted = true;
    } else {
      path.pop();
      ops.push({ op: 'replace', path: path.pointer(), value: obj });
      path.push(key);
    }
    path.pop();
  }
  // Own enumerable keys of a JSON object, counted and visited without Object.keys' array.
  let newKeyCount = 0;
  for (const key in record) if (hasOwn(record, key)) newKeyCount++;
  if (!deleted && newKeyCount === oldKeys.length) return;
  for (const key in record) {
    if (!hasOwn(record, key) || hasOwn(mirror, key) || record[key] === undefined) continue;
    path.push(key);
    ops.push({ op: 'add', path: path.pointer(), value: record[key] });
    path.pop();
  }
}

export function encodePatch(ops: PatchOperation[]): string {
  return Buffer.from(JSON.stringify(ops), 'utf8').toString('base64');
}

export function decodePatch(encoded: string): PatchOperation[] {
  return JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as PatchOperation[];
}

/** Applies a patch to a deep copy of `doc`, as Karmada does (evanphx/json-patch semantics). */
export function applyPatch<T extends object>(doc: T, ops: PatchOperation[]): T {
  return fastJsonPatch.applyPatch(structuredClone(doc), ops, true, false).newDocument;
}
