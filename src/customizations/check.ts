// `check`: compile-check RIC files and print a report in the layout of `karmadactl interpret --check`
// (pkg/karmadactl/interpret/check.go): per object SOURCE, TARGET and, per rule, UNSET / PASS / ERROR.
import { readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { parseCustomizationFile } from './parse.ts';
import { CUSTOMIZATION_RULES } from '../lua/operations.ts';
import { findCustomizationFiles } from './files.ts';
import type { CustomizationRuntime } from './interpreter.ts';
import { compileError } from './loader.ts';

export interface CheckResult {
  output: string;
  ok: boolean;
}

const SEPARATOR = '-----------------------------------';

/**
 * Like karmadactl, only compilation is checked, not function names; unlike it, unknown fields are errors
 * (as `kubectl apply` refuses them) and objects of other kinds are skipped with a warning, exactly as
 * `serve` loads the same folder.
 */
export function checkCustomizationFiles(paths: readonly string[], runtime: Pick<CustomizationRuntime, 'compileCheck'>): CheckResult {
  let ok = true;
  const lines: string[] = [];
  const { files, missing } = findCustomizationFiles(paths);
  const shown = (file: string) => asGiven(file, paths);
  for (const path of missing) {
    ok = false;
    lines.push(`error: the path "${path}" does not exist`);
  }

  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      ok = false;
      lines.push(SEPARATOR, `SOURCE: ${shown(file)}`, `cannot read ${shown(file)}: ${(err as Error).message}`);
      continue;
    }
    for (const doc of parseCustomizationFile(text, file)) {
      // Every message names the file (as the user gave its path) and the document: a name alone, or
      // "line 15 of the file", does not say where to look when a folder holds many files.
      const where = `${shown(file)} document ${doc.document}`;
      if (doc.skipped) {
        lines.push(SEPARATOR, `SOURCE: ${where}`, `WARNING: ${where}: ${doc.skipped}`);
        continue;
      }
      lines.push(SEPARATOR, `SOURCE: ${doc.name === undefined ? where : `${doc.name} (${where})`}`);
      const ric = doc.customization;
      if (!ric) {
        ok = false;
        lines.push(`${where}: ${doc.error ?? 'invalid'}`);
        continue;
      }
      lines.push(`TARGET: ${ric.target.apiVersion} ${ric.target.kind}\t`, 'RULERS:');
      for (const { field, operation } of CUSTOMIZATION_RULES) {
        const script = ric.scripts[field];
        let verdict = 'UNSET';
        if (script) {
          const error = compileError(runtime, script, ric.positions?.[field], shown(file));
          if (error === undefined) {
            verdict = 'PASS';
          } else {
            ok = false;
            verdict = `ERROR: ${error.trim().replace(/\s*\n\s*/g, ' ')}\t`;
          }
        }
        lines.push(`    ${operation}:\t${verdict}`);
      }
    }
  }
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
