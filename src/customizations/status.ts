// What /readyz and the metrics say about the user's customization files, at start and after each reload.
// At start a file that fails to load keeps the server unready (a broken ConfigMap must stop a rolling
// update) unless --serve-with-broken-customizations; after a rejected reload the last good set keeps
// serving (watch.ts) and the server stays ready, saying which files serve their last good copy.
// /readyz is unauthenticated: the files it names are the configured paths and what the walk found inside
// them (files.ts never yields a path out of a folder, decision 0014); a problem is clipped to 200 characters.
import type { LoadProblem, LoadResult } from './loader.ts';

/** Longest problem text quoted per file in /readyz (the log has them all, whole). */
const PROBLEM_CHARS = 200;

export interface CustomizationStatus {
  ok: boolean;
  detail: string;
  /** Files whose latest reload failed while their last good copy keeps serving. */
  lastGood: string[];
}

/** The files of `set` that loaded without an error. */
function goodFiles(set: LoadResult | undefined): Set<string> {
  const bad = new Set((set?.errors ?? []).map((problem) => problem.file));
  return new Set((set?.files ?? []).filter((file) => !bad.has(file)));
}

/** Each file with problems once, in order, with its first problem (and how many more). */
function byFile(errors: readonly LoadProblem[]): Array<{ file: string; why: string }> {
  const files = new Map<string, string[]>();
  for (const { file, message } of errors) files.set(file, [...(files.get(file) ?? []), message]);
  return [...files].map(([file, messages]) => {
    const first = messages[0].replace(/\s+/g, ' ').trim();
    const clipped = first.length > PROBLEM_CHARS ? `${first.slice(0, PROBLEM_CHARS - 1)}…` : first;
    return { file, why: messages.length > 1 ? `${clipped} (and ${messages.length - 1} more)` : clipped };
  });
}

/**
 * Follows the loads of the user's customizations: `start` with the start-up load, `reload` after each
 * reload, each returning the readiness check and the files serving their last good copy.
 */
export class CustomizationReport {
  /** A file broken at start has not loaded cleanly since (and the flag does not allow serving without it). */
  private brokenSinceStart = false;

  private readonly serveWithBroken: boolean;

  constructor(serveWithBroken: boolean) {
    this.serveWithBroken = serveWithBroken;
  }

  start(errors: readonly LoadProblem[]): CustomizationStatus {
    this.brokenSinceStart = errors.length > 0 && !this.serveWithBroken;
    if (errors.length === 0) return { ok: true, detail: 'all customization files loaded', lastGood: [] };
    const files = byFile(errors).map(({ file, why }) => `${file} failed to load, not served: ${why}`);
    const consequence = this.serveWithBroken
      ? 'the other files serve (--serve-with-broken-customizations)'
      : 'unready until it loads (--serve-with-broken-customizations serves the other files)';
    return { ok: !this.brokenSinceStart, detail: `${files.join('; ')}; ${consequence}`, lastGood: [] };
  }

  /**
   * After a reload: `applied` when it had no error and now serves; else `serving` is the set that keeps
   * serving (the last good one, or the start's when nothing loaded cleanly since).
   */
  reload(result: Pick<LoadResult, 'errors'>, applied: boolean, serving: LoadResult | undefined): CustomizationStatus {
    if (applied) this.brokenSinceStart = false;
    if (result.errors.length === 0) return { ok: !this.brokenSinceStart, detail: 'all customization files loaded', lastGood: [] };
    const good = goodFiles(serving);
    const lastGood: string[] = [];
    const files = byFile(result.errors).map(({ file, why }) => {
      if (good.has(file)) {
        lastGood.push(file);
        return `serving the last good copy of ${file}; reload failed: ${why}`;
      }
      return `${file} not served (no good copy of it has loaded); reload failed: ${why}`;
    });
    const consequence = `; the rest of this reload waits until every file loads${this.brokenSinceStart ? '; unready until the files broken at start load' : ''}`;
    return { ok: !this.brokenSinceStart, detail: `${files.join('; ')}${consequence}`, lastGood };
  }
}
