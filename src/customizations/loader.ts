// Loading RIC files into KindInterpreters: find, read, parse, compile-check (on the load worker, or in
// process where a test passes its own compiler), merge, build. The main thread only merges and builds.
import { createHash } from 'node:crypto';
import { statSync, type BigIntStats } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FailedCustomization } from '../interpreter/registry.ts';
import type { Customization } from './parse.ts';
import { findBuiltinCustomizationFiles, findCustomizationFiles, type FoundFiles } from './files.ts';
import type { CustomizationRuntime, LuaInterpreterOptions, LuaKindInterpreter } from './interpreter.ts';
import { createLuaInterpreter } from './interpreter.ts';
import { loadOffThread, type LoadWorkerLimits } from './load-off-thread.ts';
import { mergeCustomizations } from './merge.ts';
import { loadFile, type FileOutcome } from './read-file.ts';
import type { FoundFile } from './safe-read.ts';

export { compileError } from './read-file.ts';

export interface LoadProblem {
  file: string;
  message: string;
}

/** Counts for metrics and /readyz. */
export interface LoadSummary {
  /** Files read (good or bad). */
  files: number;
  /** RIC objects in use (from files without errors). */
  customizations: number;
  /** Distinct apiVersion+kind targets served. */
  targets: number;
  /** Non-empty scripts in use. */
  scripts: number;
  /** Entries in `errors`. */
  errors: number;
  /** Files rejected because of an error. */
  rejectedFiles: number;
  warnings: number;
}

export interface LoadResult {
  interpreters: LuaKindInterpreter[];
  /** Problems that made a file unusable; message names the document (1-based) and RIC. */
  errors: LoadProblem[];
  /** Problems that did not stop loading (a script shadowed by another RIC for the same target, an object of another kind skipped). */
  warnings: LoadProblem[];
  /**
   * The targets of the customizations in rejected files, as far as they could be read: a call for one
   * of them answers "customization X failed to load" instead of "not served" (registry.ts).
   */
  failed: FailedCustomization[];
  /** Every file read, sorted. */
  files: string[];
  summary: LoadSummary;
  /** What the load saw, for the watch to tell whether anything changed since (watch.ts). */
  fingerprint: Fingerprint;
}

/** `stats`: the walk and every file's dev, inode, size and mtime, taken before reading; `content`: the bytes read. */
export interface Fingerprint {
  stats: string;
  content: string;
  /**
   * A file's load was stopped (load-off-thread.ts: the worker's start or per-file timeout, its memory):
   * a failure that may pass on a less busy node, so the watch loads again even if `stats` is unchanged.
   */
  retry?: boolean;
}

export interface LoadOptions extends LuaInterpreterOptions {
  runtime: CustomizationRuntime;
  /**
   * Read, parse and compile-check on the load worker (load-off-thread.ts), with these limits: what the
   * server and the CLI do. Without it, in process with `runtime.compileCheck` (tests with a fake compiler).
   */
  offThread?: LoadWorkerLimits | true;
}

/**
 * Loads RICs from files and directories (see findCustomizationFiles). A file with any error (YAML, a
 * document that is not a valid RIC, a script that does not compile) is reported and none of its
 * customizations are used; the other files still load. A path that does not exist is an error.
 */
export async function loadCustomizations(paths: readonly string[], options: LoadOptions): Promise<LoadResult> {
  const found = await findCustomizationFiles(paths);
  const result = await loadFiles(found, options, await statsFingerprint(found));
  // A link out of a folder is an error of the folder's file list, reported under the link's own path.
  for (const { file, message } of found.refused) result.errors.push({ file, message });
  for (const path of found.missing) result.errors.unshift({ file: path, message: 'no such file or directory' });
  result.summary.errors = result.errors.length;
  result.summary.rejectedFiles += found.refused.length;
  return result;
}

/**
 * Loads the built-in customizations: `files`, or every `interpreters/**\/customizations.yaml` outside
 * `testdata` (the shipped examples, src/customizations/examples.ts, choose which).
 */
export async function loadBuiltinCustomizations(options: LoadOptions & { root?: string; files?: readonly string[] }): Promise<LoadResult> {
  const files = options.files ? [...options.files] : findBuiltinCustomizationFiles(options.root);
  return loadFiles({ files, entries: files.map((path) => ({ path })), missing: [], refused: [] }, options, '');
}

/**
 * The walk and each file's identity and size, as `stat` sees it through links (a ConfigMap's `..data`
 * swap changes the inode): what a poll compares, without reading or hashing any file.
 */
export async function statsFingerprint(found: FoundFiles): Promise<string> {
  const stats = [];
  for (const file of found.files) stats.push(await stat(file, { bigint: true }).catch(() => undefined));
  return statsHash(found, stats);
}

/** The same, synchronously (the watch's baseline when it is given no start-up load). */
export function statsFingerprintSync(found: FoundFiles): string {
  return statsHash(
    found,
    found.files.map((file) => statSync(file, { bigint: true, throwIfNoEntry: false })),
  );
}

function statsHash(found: FoundFiles, stats: ReadonlyArray<BigIntStats | undefined>): string {
  const parts = found.files.map((file, i) => {
    const s = stats[i];
    return `${file}\0${s ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}` : 'gone'}`;
  });
  return hashOf([...found.missing, '', ...found.refused.map((r) => r.file), '', ...parts]);
}

/** The walk and the hash of each file's bytes (read-file.ts `FileOutcome.hash`), in the order of `found.files`. */
export function contentFingerprint(found: Pick<FoundFiles, 'files' | 'missing' | 'refused'>, hashes: readonly string[]): string {
  return hashOf([...found.missing, '', ...found.refused.map((r) => r.file), '', ...found.files.flatMap((file, i) => [file, hashes[i]])]);
}

function hashOf(parts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex');
}

async function readAll(entries: readonly FoundFile[], options: LoadOptions): Promise<FileOutcome[]> {
  if (entries.length === 0) return [];
  if (options.offThread) return loadOffThread(entries, options.offThread === true ? {} : options.offThread);
  const outcomes: FileOutcome[] = [];
  for (const entry of entries) {
    // In process, compiling is synchronous: yield between files so a reload delays requests by one file's work at most.
    await new Promise<void>((resolve) => setImmediate(resolve));
    outcomes.push(await loadFile(entry, options.runtime));
  }
  return outcomes;
}

async function loadFiles(found: FoundFiles, options: LoadOptions, stats: string): Promise<LoadResult> {
  const { entries, files } = found;
  const errors: LoadProblem[] = [];
  const skipped: LoadProblem[] = [];
  const failed: FailedCustomization[] = [];
  const accepted: Customization[] = [];
  let rejectedFiles = 0;
  const outcomes = await readAll(entries, options);

  files.forEach((file, index) => {
    const { customizations, problems, warnings: fileWarnings, failed: fileFailed } = outcomes[index];
    for (const message of fileWarnings) skipped.push({ file, message });
    if (problems.length > 0) {
      rejectedFiles++;
      for (const message of problems) errors.push({ file, message });
      failed.push(...fileFailed);
    } else {
      accepted.push(...customizations);
    }
  });

  const merged = mergeCustomizations(accepted);
  const { targets } = merged;
  const warnings = [...skipped, ...merged.warnings];
  const interpreters = targets.map((target) => createLuaInterpreter(target, options.runtime, options));
  const scripts = targets.reduce((n, t) => n + Object.keys(t.rules).length + t.dependencies.length, 0);
  return {
    interpreters,
    errors,
    warnings,
    failed,
    files,
    summary: {
      files: files.length,
      customizations: accepted.length,
      targets: targets.length,
      scripts,
      errors: errors.length,
      rejectedFiles,
      warnings: warnings.length,
    },
    fingerprint: {
      stats,
      content: contentFingerprint(
        found,
        outcomes.map((outcome) => outcome.hash),
      ),
      retry: outcomes.some((outcome) => outcome.hash.startsWith('stopped:')),
    },
  };
}
