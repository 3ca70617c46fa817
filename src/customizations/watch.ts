// Reloading user customizations when their files change: fs.watch (recursive where the platform has
// it) for promptness, plus a poll that compares a content fingerprint, because fs.watch misses events on
// some filesystems (NFS, some container mounts) and a ConfigMap volume update is a symlink swap.
import { createHash } from 'node:crypto';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { findCustomizationFiles } from './files.ts';
import type { LoadOptions, LoadResult } from './loader.ts';
import { loadCustomizations } from './loader.ts';

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
  const pollMs = options.pollMs ?? 5000;
  let lastGood = options.initial;
  let fingerprint = customizationFingerprint(paths);
  let closed = false;
  let running: Promise<LoadResult | undefined> | undefined;
  let again = false;
  let debounceTimer: NodeJS.Timeout | undefined;

  const reload = async (): Promise<LoadResult | undefined> => {
    if (running) {
      // A change arrived while loading: load once more afterwards so the last change is never lost.
      again = true;
      return running;
    }
    const load = async (): Promise<LoadResult | undefined> => {
      try {
        const next = customizationFingerprint(paths);
        if (closed || next === fingerprint) return undefined;
        const result = await loadCustomizations(paths, options);
        if (closed) return undefined;
        fingerprint = next;
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

/** Hash of the sorted file list and every file's content: equal fingerprints mean nothing to reload. */
export function customizationFingerprint(paths: readonly string[]): string {
  const hash = createHash('sha256');
  const { files, missing } = findCustomizationFiles(paths);
  for (const file of files) {
    hash.update(file).update('\0');
    try {
      hash.update(readFileSync(file));
    } catch {
      hash.update('<unreadable>');
    }
    hash.update('\0');
  }
  hash.update(`missing:${missing.join('\0')}`);
  return hash.digest('hex');
}
