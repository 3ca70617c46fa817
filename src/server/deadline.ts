// Karmada appends ?timeout=<Go duration> (e.g. "30s", "1m0s", "500ms") to every call and gives up
// after it; we answer a clear failure shortly before that instead of letting the call time out.
import { parseGoDuration } from '../go/duration.ts';

// The parser lives in src/go/duration.ts (the duration flags share it); re-exported for existing callers.
export { parseGoDuration };

// Karmada sends the same ?timeout= on every call: parse each distinct text once (bounded, since the
// query is the caller's to choose).
const parsed = new Map<string, number | undefined>();
const PARSED_LIMIT = 64;

function cachedGoDuration(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (parsed.has(text)) return parsed.get(text);
  const value = parseGoDuration(text);
  if (parsed.size >= PARSED_LIMIT) parsed.clear();
  parsed.set(text, value);
  return value;
}

/** How long we may work: the caller's timeout less a margin for the network, capped by our own maximum. */
export function answerWithinMs(timeoutQuery: string | undefined, maxMs: number): number {
  const timeout = cachedGoDuration(timeoutQuery);
  if (timeout === undefined) return maxMs;
  return Math.max(50, Math.min(maxMs, timeout - Math.min(500, timeout * 0.1)));
}
