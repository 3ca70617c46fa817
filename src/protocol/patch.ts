// JSON Patch (RFC 6902) between the object Karmada sent and the object an interpreter returned,
// encoded the way Karmada decodes `patch` ([]byte): standard, padded base64 of the patch text.
//
// Karmada applies the patch to the object as Go's encoding/json decoded it (go-json.ts): strings that Go
// decodes to the same text are equal, so a field the interpreter did not change is never in the patch,
// even when JSON.parse and Go read its text differently (a lone surrogate). The operations are those
// fast-json-patch's compare generates, in its order (test/protocol/patch.test.ts compares them), without
// its deep copies of every value added.
import fastJsonPatch from 'fast-json-patch';
import type { Operation as PatchOperation } from 'fast-json-patch';
import { setOwn } from '../interpreter/copy.ts';
import { goText } from './go-json.ts';

export type { PatchOperation };

/**
 * The most JSON text a patch built from a script's result may have (src/isolation/untrusted-worker.ts).
 * Karmada stores what the patch produces (a Work's manifest) in etcd, whose values are at most 1.5 MiB,
 * behind an API server that refuses request bodies over 3 MiB: a larger patch can only make an object
 * Kubernetes refuses.
 */
export const MAX_PATCH_BYTES = 4 * 1024 * 1024;

export class PatchTooLargeError extends Error {}

/** Patches computed where the result was built (the worker that ran the script), by the result object. */
const knownPatches = new WeakMap<object, PatchOperation[]>();
/** The JSON text of a patch whose text is already known, so encodePatch does not write it again. */
const patchTexts = new WeakMap<PatchOperation[], string>();

/**
 * Operations turning `original` into `modified`; [] when nothing changed. Neither input is mutated; the
 * values of the operations are `modified`'s own. Parts of `modified` that are the very objects of
 * `original` (what the dispatcher shares with a module instead of copying) are skipped without being
 * walked. A `modified` made by applyKnownPatch returns the patch it was made with.
 */
export function diff(original: object, modified: object): PatchOperation[] {
  const known = knownPatches.get(modified);
  if (known) return known;
  const ops: PatchOperation[] = [];
  generate(original as Container, modified as Container, '', (op) => ops.push(op));
  return ops;
}

/** diff() as JSON text, refused with PatchTooLargeError once it passes `maxBytes` characters. */
export function diffText(original: object, modified: object, maxBytes = MAX_PATCH_BYTES): string {
  const parts: string[] = [];
  let length = 2;
  generate(original as Container, modified as Container, '', (op) => {
    const text = JSON.stringify(op);
    length += text.length + 1;
    if (length > maxBytes) throw new PatchTooLargeError(`the patch is over the limit of ${maxBytes} bytes of JSON`);
    parts.push(text);
  });
  return `[${parts.join(',')}]`;
}

/**
 * `base` with a patch diffText wrote (`text`, its operations `ops`) applied: containers on the way to a
 * change are copied (each once), everything else is shared with `base`, which is not mutated. diff() of
 * the result returns `ops`, whose text encodePatch reuses.
 */
export function applyKnownPatch<T extends object>(base: T, ops: PatchOperation[], text: string): T {
  const result = applyCopyOnWrite(base, ops);
  knownPatches.set(result, ops);
  patchTexts.set(ops, text);
  return result;
}

export function encodePatch(ops: PatchOperation[]): string {
  return Buffer.from(patchTexts.get(ops) ?? JSON.stringify(ops), 'utf8').toString('base64');
}

export function decodePatch(encoded: string): PatchOperation[] {
  return JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as PatchOperation[];
}

/** Applies a patch to a deep copy of `doc`, as Karmada does (evanphx/json-patch semantics). */
export function applyPatch<T extends object>(doc: T, ops: PatchOperation[]): T {
  return fastJsonPatch.applyPatch(structuredClone(doc), ops, true, false).newDocument;
}

type Container = Record<string, unknown> | unknown[];

const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null;
const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);
const keysOf = (value: Container): string[] => (Array.isArray(value) ? Array.from(value, (_, i) => String(i)) : Object.keys(value));
const escapePath = (key: string): string => (key.includes('/') || key.includes('~') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key);

/** Equal as Go decodes them: the same value, or strings Go reads as the same text. */
const goEqual = (a: unknown, b: unknown): boolean => a === b || (typeof a === 'string' && typeof b === 'string' && goText(a) === goText(b));

/** The key of `object` that Go reads as `key`, if any: `key` itself, or the same text once Go has decoded both. */
function counterpart(object: Container, key: string): string | undefined {
  if (hasOwn(object, key)) return key;
  const decoded = goText(key);
  if (decoded !== key && hasOwn(object, decoded)) return decoded;
  return undefined;
}

/** fast-json-patch's _generate (compare without test operations), with Go's equality of strings and keys. */
function generate(old: Container, neu: Container, path: string, emit: (op: PatchOperation) => void): void {
  if (old === neu) return;
  const oldKeys = keysOf(old);
  const newKeys = keysOf(neu);
  const oldRecord = old as Record<string, unknown>;
  const newRecord = neu as Record<string, unknown>;
  let deleted = false;
  for (let t = oldKeys.length - 1; t >= 0; t--) {
    const key = oldKeys[t];
    const oldValue = oldRecord[key];
    const newKey = counterpart(neu, key);
    if (newKey !== undefined && !(newRecord[newKey] === undefined && oldValue !== undefined && !Array.isArray(neu))) {
      const newValue = newRecord[newKey];
      if (isContainer(oldValue) && isContainer(newValue) && Array.isArray(oldValue) === Array.isArray(newValue)) {
        generate(oldValue, newValue, `${path}/${escapePath(key)}`, emit);
      } else if (!goEqual(oldValue, newValue)) {
        emit({ op: 'replace', path: `${path}/${escapePath(key)}`, value: newValue });
      }
    } else if (Array.isArray(old) === Array.isArray(neu)) {
      emit({ op: 'remove', path: `${path}/${escapePath(key)}` });
      deleted = true;
    } else {
      emit({ op: 'replace', path, value: neu });
    }
  }
  if (!deleted && newKeys.length === oldKeys.length) return;
  let oldDecodedKeys: Set<string> | undefined;
  for (const key of newKeys) {
    if (hasOwn(old, key) || newRecord[key] === undefined) continue;
    // A key Go reads as one of the old keys (the old one holding a lone surrogate) is that key.
    if (key.includes('\ufffd') || goText(key) !== key) {
      oldDecodedKeys ??= new Set(oldKeys.map(goText));
      if (oldDecodedKeys.has(goText(key))) continue;
    }
    emit({ op: 'add', path: `${path}/${escapePath(key)}`, value: newRecord[key] });
  }
}

const unescapePath = (token: string): string => token.replace(/~1/g, '/').replace(/~0/g, '~');

/** Applies the add, remove and replace operations generate() writes, copying each container it changes once. */
function applyCopyOnWrite<T extends object>(base: T, ops: PatchOperation[]): T {
  const copies = new Set<Container>();
  const own = (container: Container): Container => {
    if (copies.has(container)) return container;
    let copy: Container;
    if (Array.isArray(container)) copy = container.slice();
    else {
      copy = {};
      for (const key of Object.keys(container)) setOwn(copy, key, container[key]);
    }
    copies.add(copy);
    return copy;
  };
  let root: unknown = base;
  for (const op of ops) {
    if (op.op !== 'add' && op.op !== 'remove' && op.op !== 'replace') throw new Error(`unexpected patch operation ${op.op}`);
    if (op.path === '') {
      if (op.op === 'remove') throw new Error('a patch cannot remove the whole object');
      root = op.value;
      continue;
    }
    const tokens = op.path.slice(1).split('/').map(unescapePath);
    if (!isContainer(root)) throw new Error(`patch path ${op.path} does not apply`);
    root = own(root);
    let parent = root as Container;
    for (const token of tokens.slice(0, -1)) {
      const child = (parent as Record<string, unknown>)[token];
      if (!isContainer(child) || !hasOwn(parent, token)) throw new Error(`patch path ${op.path} does not apply`);
      const copy = own(child);
      if (copy !== child) setOwn(parent as Record<string, unknown>, token, copy);
      parent = copy;
    }
    const last = tokens[tokens.length - 1];
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (op.op === 'add') parent.splice(index, 0, op.value);
      else if (op.op === 'remove') parent.splice(index, 1);
      else parent[index] = op.value;
    } else if (op.op === 'remove') delete parent[last];
    else setOwn(parent, last, op.value);
  }
  return root as T;
}
