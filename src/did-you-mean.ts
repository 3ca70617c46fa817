// "did you mean" suggestions for misspelled field names, kinds and flags.
import { closestMatch } from 'leven';

/**
 * The candidate closest to `text` by edit distance, ignoring case, when it is close enough to be a
 * typo of it (at most a third of its length, and at least 2 edits allowed); otherwise undefined.
 */
export function didYouMean(text: string, candidates: readonly string[]): string | undefined {
  // Edit distance costs length × length; a name this long (it can come from a request) is no typo.
  if (text.length > 100) return undefined;
  const lower = candidates.map((candidate) => candidate.toLowerCase());
  const match = closestMatch(text.toLowerCase(), lower, { maxDistance: Math.max(2, Math.floor(text.length / 3)) });
  return match === undefined ? undefined : candidates[lower.indexOf(match)];
}

/** " (did you mean X?)" or "". */
export function didYouMeanSuffix(text: string, candidates: readonly string[]): string {
  const suggestion = didYouMean(text, candidates);
  return suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`;
}
