// How a user names a kind on the command line (--examples, --kinds, --exclude-kinds): `Kind`, or
// `Kind.group` as kubectl writes a resource with its group (`Rollout.argoproj.io`), case-insensitive.
// A kind never contains a dot, so the first dot separates the two.
import { didYouMeanSuffix } from '../did-you-mean.ts';

export interface KindSelector {
  /** As the user wrote it, for messages. */
  text: string;
  kind: string;
  /** Absent: any group. '' is the core group. */
  group?: string;
}

export interface KindRef {
  apiVersion: string;
  kind: string;
}

export class KindSelectorError extends Error {}

export function parseKindSelector(text: string): KindSelector {
  const trimmed = text.trim();
  const dot = trimmed.indexOf('.');
  const kind = dot === -1 ? trimmed : trimmed.slice(0, dot);
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(kind))
    throw new KindSelectorError(`${JSON.stringify(text)} is not a kind: write Kind or Kind.group (e.g. CloneSet, Rollout.argoproj.io)`);
  return dot === -1 ? { text: trimmed, kind } : { text: trimmed, kind, group: trimmed.slice(dot + 1) };
}

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/** `Kind.group` (`Kind` for the core group): the name this selector syntax gives a kind. */
export function selectorName(ref: KindRef): string {
  const group = groupOf(ref.apiVersion);
  return group ? `${ref.kind}.${group}` : ref.kind;
}

export function selects(selector: KindSelector, ref: KindRef): boolean {
  if (selector.kind.toLowerCase() !== ref.kind.toLowerCase()) return false;
  return selector.group === undefined || selector.group.toLowerCase() === groupOf(ref.apiVersion).toLowerCase();
}

/**
 * Parses every selector and checks that each names at least one of `available`; the error names the
 * unmatched one, suggests the closest name and lists what there is.
 */
export function parseSelectors(texts: readonly string[], available: readonly KindRef[], what: string): KindSelector[] {
  const names = [...new Set(available.map(selectorName))].sort();
  return texts
    .flatMap((text) => text.split(','))
    .filter((text) => text.trim() !== '')
    .map((text) => {
      const selector = parseKindSelector(text);
      if (!available.some((ref) => selects(selector, ref))) {
        const candidates = [...new Set([...names, ...available.map((ref) => ref.kind)])];
        throw new KindSelectorError(
          `${JSON.stringify(selector.text)} matches no ${what}${didYouMeanSuffix(selector.text, candidates)}; ${what}s: ${names.join(', ') || 'none'}`,
        );
      }
      return selector;
    });
}

/** The refs that `include` selects (all when it is empty) and `exclude` does not. */
export function filterKinds<T extends KindRef>(refs: readonly T[], include: readonly KindSelector[], exclude: readonly KindSelector[]): T[] {
  return refs.filter((ref) => (include.length === 0 || include.some((s) => selects(s, ref))) && !exclude.some((s) => selects(s, ref)));
}
