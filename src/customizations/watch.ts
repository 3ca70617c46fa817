// Reloading user customizations when their files change: fs.watch (recursive where the platform has
// it) for promptness, plus a poll, because fs.watch misses events on some filesystems (NFS, some
// container mounts) and a ConfigMap volume update is a symlink swap. A poll walks the folders and stats
// the files (dev, inode, size, mtime), asynchronously; it reads nothing unless that changed or the last
// load was stopped on the load worker (a timeout, its memory), which is retried with a back-off. A change
// is reloaded (off the main thread, loader.ts) and applied only if the bytes read differ from the last
// load's, so rewriting a file with the same content (or touching it) reloads nothing.
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { findCustomizationFiles, findCustomizationFilesSync } from './files.ts';
import type { Fingerprint, LoadOptions, LoadResult } from './loader.ts';
import { contentFingerprint, loadCustomizations, statsFingerprint, statsFingerprintSync } from './loader.ts';
import { readCustomizationFileSync } from './safe-read.ts';

const DEFAULT_POLL_MS = 5000;

export interface WatchOptions extends LoadOptions {
  /** Quiet period after the last change before reloading (editors write files in several steps). */
  debounceMs?: number;
  /** Poll interval; 0 disables polling. */
  pollMs?: number;
  /** The set being served when the watch starts (the start-up load). */
  initial?: LoadResult;
  /** Called when a reload itself throws (it should not; reported rather than crashing the server). */
  onError?: (err: unknown) => void;
}

export interface CustomizationWatch {
  /** The last load without errors (or `initial`): what the caller should be serving. */
  current(): LoadResult | undefined;
  /** Reloads now if the files changed since the last load; resolves with the new result, if any. */
  reload(): Promise<LoadResult | undefined>;
  close(): void;
}

/**
 * Calls `onReload(result)` after every reload whose files differ from the previous load. When
 * `result.errors` is not empty the caller should keep serving the last good set (`current()` keeps it)
 * and report the errors; a later successful reload replaces it.
 */
export function watchCustomizations(paths: readonly string[], onReload: (result: LoadResult) => void, options: WatchOptions): CustomizationWatch {
  const debounceMs = options.debounceMs ?? 300;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  let lastGood = options.initial;
  // What the last load saw; without `initial`, what the folders hold when the watch starts.
  // Taken synchronously, so a change made right after the watch starts is a change.
  let known: Fingerprint = options.initial?.fingerprint ?? baseline(paths);
  let closed = false;
  let running: Promise<LoadResult | undefined> | undefined;
  let again = false;
  let debounceTimer: NodeJS.Timeout | undefined;
  // Loads stopped in a row, and when the next retry may run: the first at the next poll, then after
  // 1, 2, 4 … 64 poll intervals, so a file that always overruns its limits is not re-parsed every poll.
  let stoppedLoads = 0;
  let retryAt = 0;

  const reload = async (): Promise<LoadResult | undefined> => {
    if (running) {
      // A change arrived while loading: load once more afterwards so the last change is never lost.
      again = true;
      return running;
    }
    const load = async (): Promise<LoadResult | undefined> => {
      try {
        const before = known;
        const stats = await customizationFingerprint(paths);
        // Unchanged files are not read again, unless the last load was stopped (not refused for its
        // bytes): that is retried, backing off, until it passes.
        if (closed || (stats === before.stats && (before.retry !== true || Date.now() < retryAt))) return undefined;
        const result = await loadCustomizations(paths, options);
        if (closed) return undefined;
        known = result.fingerprint;
        stoppedLoads = result.fingerprint.retry === true ? stoppedLoads + 1 : 0;
        retryAt = stoppedLoads <= 1 ? 0 : Date.now() + (pollMs || DEFAULT_POLL_MS) * 2 ** Math.min(stoppedLoads - 2, 6);
        if (result.fingerprint.content === before.content) return undefined;
        if (result.errors.length === 0) lastGood = result;
        onReload(result);
        return result;
      } catch (err) {
        options.onError?.(err);
        return undefined;
      }
    };
    // `.finally` runs after `running` is assigned, even when `load` settles synchronously.
    running = load().finally(() => {
      running = undefined;
      if (again && !closed) {
        again = false;
        schedule();
      }
    });
    return running;
  };

  const schedule = () => {
    if (closed) return;
    clearTimeout(debounceTimer);
    debounceTimer = setTimeout(() => void reload(), debounceMs);
    debounceTimer.unref();
  };

  const watchers: FSWatcher[] = [];
  for (const path of paths) {
    const watcher = startWatcher(path, schedule);
    if (watcher) watchers.push(watcher);
  }
  const pollTimer = pollMs > 0 ? setInterval(schedule, pollMs) : undefined;
  pollTimer?.unref();

  return {
    current: () => lastGood,
    reload,
    close() {
      closed = true;
      clearTimeout(debounceTimer);
      if (pollTimer) clearInterval(pollTimer);
      for (const watcher of watchers) watcher.close();
    },
  };
}

function startWatcher(path: string, onChange: () => void): FSWatcher | undefined {
  for (const recursive of [true, false]) {
    try {
      const watcher = watch(path, { recursive, persistent: false }, onChange);
      // A watched directory that disappears ends the watcher; the poll keeps covering it.
      watcher.on('error', () => watcher.close());
      return watcher;
    } catch {
      // Recursive watching is unavailable on this platform, or the path does not exist (yet): fall back.
    }
  }
  return undefined;
}

/** The stat fingerprint of what `paths` hold now (loader.ts statsFingerprint): reads no file. */
export async function customizationFingerprint(paths: readonly string[]): Promise<string> {
  return statsFingerprint(await findCustomizationFiles(paths));
}

/**
 * What `paths` hold when a watch starts without a start-up load (tests, tools), read synchronously once:
 * the fingerprint a load of them would have (read-file.ts hashes the bytes the same way).
 */
function baseline(paths: readonly string[]): Fingerprint {
  const found = findCustomizationFilesSync(paths);
  const hashes = found.entries.map((entry) => {
    try {
      return createHash('sha256').update(readCustomizationFileSync(entry)).digest('hex');
    } catch (error) {
      return `refused:${(error as Error).message}`;
    }
  });
  return { stats: statsFingerprintSync(found), content: contentFingerprint(found, hashes) };
}
