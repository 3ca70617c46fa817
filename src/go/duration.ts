// Go's time.ParseDuration text ("1m30s", "1h", "1.5s", ".5s", "0"), the form Karmada puts in
// ?timeout= and Kubernetes users write in flags. Negative durations are refused: nothing here can
// wait a negative time. Written by hand: it is one regular expression and a unit table.
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

// A number is digits with an optional fraction, or a fraction alone (Go accepts "1.s" and ".5s", not ".s").
const PART = '(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:ns|us|µs|μs|ms|s|m|h)';
const WHOLE = new RegExp(`^\\+?(?:${PART})+$`);
const PARTS = new RegExp(`(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|μs|ms|s|m|h)`, 'g');

/** Milliseconds of a Go duration string; undefined when it is not one (or is negative). */
export function parseGoDuration(text: string | undefined): number | undefined {
  if (!text) return undefined;
  // Go accepts a bare "0" (with an optional sign) and no other number without a unit.
  if (text === '0' || text === '+0') return 0;
  if (!WHOLE.test(text)) return undefined;
  let total = 0;
  for (const [, value, unit] of text.matchAll(PARTS)) total += Number(value) * UNIT_MS[unit!]!;
  return Number.isFinite(total) ? total : undefined;
}

/** Go's own rendering of a millisecond count for messages ("1m30s", "500ms", "0s"). */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${Number(ms.toFixed(3))}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = Number(((ms % 60_000) / 1000).toFixed(3));
  return `${hours ? `${hours}h` : ''}${hours || minutes ? `${minutes}m` : ''}${seconds}s`;
}
