// Karmada appends ?timeout=<Go duration> (e.g. "30s", "1m0s", "500ms") to every call and gives up
// after it; we answer a clear failure shortly before that instead of letting the call time out.
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go duration string; undefined when it is not one. */
export function parseGoDuration(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const parts = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/.test(text) ? text.match(/\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h)/g) : null;
  if (!parts) return undefined;
  let total = 0;
  for (const part of parts) {
    const [, value, unit] = /^(\d+(?:\.\d+)?)(.+)$/.exec(part)!;
    total += Number(value) * UNIT_MS[unit!]!;
  }
  return total;
}

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
