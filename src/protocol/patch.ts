// JSON Patch (RFC 6902) between the object Karmada sent and the object an interpreter returned,
// encoded the way Karmada decodes `patch` ([]byte): standard, padded base64 of the patch text.
import fastJsonPatch from 'fast-json-patch';
import type { Operation as PatchOperation } from 'fast-json-patch';

export type { PatchOperation };

/**
 * Operations turning `original` into `modified`; [] when nothing changed. Neither input is mutated.
 * Parts of `modified` that are the very objects of `original` (what the dispatcher shares with a module
 * instead of copying) are skipped without being walked.
 */
export function diff(original: object, modified: object): PatchOperation[] {
  return fastJsonPatch.compare(original, modified);
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
