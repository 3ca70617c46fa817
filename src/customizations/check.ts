// `check`: compile-check RIC files and print a report in the layout of `karmadactl interpret --check`
// (pkg/karmadactl/interpret/check.go): per object SOURCE, TARGET and, per rule, UNSET / PASS / ERROR.
import { join, relative, resolve, sep } from 'node:path';
import { parseCustomizationFile } from './parse.ts';
import { CUSTOMIZATION_RULES } from '../lua/operations.ts';
import { findCustomizationFilesSync } from './files.ts';
import type { CustomizationRuntime } from './interpreter.ts';
import { compileError } from './read-file.ts';
import { readCustomizationFileSync } from './safe-read.ts';

export interface CheckResult {
  output: string;
  ok: boolean;
}

const SEPARATOR = '-----------------------------------';

/** One document of a checked file: what the report says of it, as fields (document 0: the file could not be read). */
export interface CheckedObject {
  file: string;
  document: number;
  name?: string;
  target?: { apiVersion: string; kind: string };
  ok: boolean;
  rules?: Record<string, 'UNSET' | 'PASS' | 'ERROR'>;
  errors?: Record<string, string>;
  error?: string;
  warning?: string;
}

/**
 * Like karmadactl, only compilation is checked, not function names; unlike it, unknown fields are errors
 * (as `kubectl apply` refuses them) and objects of other kinds are skipped with a warning, exactly as
 * `serve` loads the same folder. Files are named as the user gave their paths.
 */
export function checkReport(paths: readonly string[], runtime: Pick<CustomizationRuntime, 'compileCheck'>): { missing: string[]; objects: CheckedObject[] } {
  // The same walk and the same reader as `serve` (links out of a folder refused, regular files of at most 1 MiB).
  const { entries, missing, refused } = findCustomizationFilesSync(paths);
  const objects: CheckedObject[] = [];
  for (const { file, message } of refused) {
    const shown = asGiven(file, paths);
    objects.push({ file: shown, document: 0, ok: false, error: `${shown}: ${message}` });
  }
  for (const entry of entries) {
    const file = entry.path;
    const shown = asGiven(file, paths);
    let text: string;
    try {
      text = readCustomizationFileSync(entry).toString('utf8');
    } catch (error) {
      objects.push({ file: shown, document: 0, ok: false, error: `${shown}: ${(error as Error).message}` });
      continue;
    }
    for (const doc of parseCustomizationFile(text, file)) {
      const object: CheckedObject = { file: shown, document: doc.document, ok: true, ...(doc.name === undefined ? {} : { name: doc.name }) };
      objects.push(object);
      if (doc.skipped) {
        object.warning = doc.skipped;
        continue;
      }
      const ric = doc.customization;
      if (!ric) {
        object.ok = false;
        object.error = doc.error ?? 'invalid';
        continue;
      }
      object.target = { apiVersion: ric.target.apiVersion, kind: ric.target.kind };
      object.rules = {};
      for (const { field, operation } of CUSTOMIZATION_RULES) {
        const script = ric.scripts[field];
        const error = script ? compileError(runtime, script, ric.positions?.[field], shown) : undefined;
        object.rules[operation] = !script ? 'UNSET' : error === undefined ? 'PASS' : 'ERROR';
        if (error !== undefined) {
          object.ok = false;
          (object.errors ??= {})[operation] = error.trim();
        }
      }
    }
  }
  return { missing, objects };
}

/** The report in karmadactl's layout: per object SOURCE, TARGET and, per rule, UNSET / PASS / ERROR. */
export function checkCustomizationFiles(paths: readonly string[], runtime: Pick<CustomizationRuntime, 'compileCheck'>): CheckResult {
  const { missing, objects } = checkReport(paths, runtime);
  const lines = missing.map((path) => `error: the path "${path}" does not exist`);
  for (const object of objects) {
    if (object.document === 0) {
      lines.push(SEPARATOR, `SOURCE: ${object.file}`, object.error!);
      continue;
    }
    // Every message names the file and the document: a name alone, or "line 15 of the file", does not say
    // where to look when a folder holds many files.
    const where = `${object.file} document ${object.document}`;
    if (object.warning !== undefined) {
      lines.push(SEPARATOR, `SOURCE: ${where}`, `WARNING: ${where}: ${object.warning}`);
      continue;
    }
    lines.push(SEPARATOR, `SOURCE: ${object.name === undefined ? where : `${object.name} (${where})`}`);
    if (!object.target || !object.rules) {
      lines.push(`${where}: ${object.error}`);
      continue;
    }
    lines.push(`TARGET: ${object.target.apiVersion} ${object.target.kind}\t`, 'RULERS:');
    for (const [operation, verdict] of Object.entries(object.rules)) {
      const shown = verdict === 'ERROR' ? `ERROR: ${object.errors![operation]!.replace(/\s*\n\s*/g, ' ')}\t` : verdict;
      lines.push(`    ${operation}:\t${shown}`);
    }
  }
  const ok = missing.length === 0 && objects.every((object) => object.ok);
  return { output: alignColumns(lines.join('\n') + (lines.length ? '\n' : '')), ok };
}

/** A found file (an absolute path) as the user would write it: under the given path that holds it. */
export function asGiven(file: string, paths: readonly string[]): string {
  for (const path of paths) {
    const root = resolve(path);
    if (file === root) return path;
    if (file.startsWith(root.endsWith(sep) ? root : root + sep)) return join(path, relative(root, file));
  }
  return file;
}

/**
 * Aligns tab-terminated cells as kubectl's tab writer does (Go text/tabwriter with minwidth 6, padding 3,
 * and kubectl's RememberWidths: a column never gets narrower than it was in an earlier block). Written
 * here because the output should match karmadactl's byte for byte and no npm package reproduces Go's
 * column-block rules; it is twenty lines.
 */
export function alignColumns(text: string, minWidth = 6, padding = 3): string {
  const rows = text.split('\n').map((line) => line.split('\t'));
  const widths: number[][] = rows.map(() => []);
  const remembered: number[] = [];
  const columns = Math.max(0, ...rows.map((cells) => cells.length - 1));
  for (let column = 0; column < columns; column++) {
    // A column block is a run of consecutive lines that all have a tab-terminated cell in this column.
    for (let start = 0; start < rows.length;) {
      if (rows[start].length - 1 <= column) {
        start++;
        continue;
      }
      let end = start;
      let width = Math.max(minWidth, remembered[column] ?? 0);
      while (end < rows.length && rows[end].length - 1 > column) {
        width = Math.max(width, rows[end][column].length + padding);
        end++;
      }
      remembered[column] = width;
      for (let i = start; i < end; i++) widths[i][column] = width;
      start = end;
    }
  }
  return rows.map((cells, i) => cells.map((cell, column) => (column < cells.length - 1 ? cell.padEnd(widths[i][column]) : cell)).join('')).join('\n');
}
