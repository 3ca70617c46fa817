// Finds Karmada-format testdata and runs it through the same dispatch the server uses.
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { BUILTIN_FILE_NAME } from '../customizations/files.ts';
import { interpret } from '../interpreter/dispatch.ts';
import type { Registry } from '../interpreter/registry.ts';
import { caseInput, compareResults, loadTestCases, resultsOf, type CaseResults, type TestCase } from './cases.ts';

export interface CaseFailure {
  file: string;
  name: string;
  problems: string[];
}

export interface RunSummary {
  passed: number;
  failed: CaseFailure[];
  /** Cases the runner was told to skip (e.g. a kind the server does not serve). */
  skipped: number;
  /** Every case that passed, by file and name (used to keep lists of known differences honest). */
  passedCases: Array<{ file: string; name: string }>;
}

/** Returned by a case runner to skip a case. */
export const SKIP = Symbol('skip');

/** Every YAML/JSON file inside a `testdata/` folder under the given paths (files are taken as given). */
export async function findTestdataFiles(paths: string[]): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, inTestdata: boolean): Promise<void> => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') await walk(full, inTestdata || entry.name === 'testdata');
      } else if (inTestdata && /\.(ya?ml|json)$/.test(entry.name)) found.push(full);
    }
  };
  for (const path of paths) {
    const info = await stat(path);
    if (info.isDirectory()) await walk(path, path.split(/[\\/]/).includes('testdata'));
    else found.push(path);
  }
  return found;
}

/**
 * Karmada's layout: `<group>/<version>/<Kind>/customizations.yaml` beside that kind's `testdata/`.
 * The customizations.yaml of the folder holding the `testdata/` folder of each given test file.
 */
export async function customizationsBesideTestdata(testdataFiles: string[]): Promise<string[]> {
  const found = new Set<string>();
  const kindDirs = new Set<string>();
  for (const file of testdataFiles) {
    const parts = file.split(/[\\/]/);
    const at = parts.lastIndexOf('testdata');
    if (at > 0) kindDirs.add(parts.slice(0, at).join('/') || '/');
  }
  for (const dir of kindDirs) {
    const candidate = join(dir, BUILTIN_FILE_NAME);
    if ((await stat(candidate).catch(() => undefined))?.isFile()) found.add(candidate);
  }
  return [...found].sort();
}

/** Runs one case in process; returns its results or a problem. */
export async function runCaseInProcess(registry: Registry, tc: TestCase): Promise<CaseResults | string> {
  const input = caseInput(tc);
  if (typeof input === 'string') return input;
  const outcome = await interpret(registry, input);
  if (!outcome.ok) return `${input.operation} failed (code ${outcome.code}): ${outcome.message}`;
  return resultsOf(outcome.result);
}

export async function runTestFiles(
  files: string[],
  runCase: (tc: TestCase) => Promise<CaseResults | string | typeof SKIP>,
  cwd = process.cwd(),
  /** Judge as Karmada's own harness does (compareResults `asKarmada`): for `conformance`. */
  compare: { asKarmada?: boolean } = {},
): Promise<RunSummary> {
  const summary: RunSummary = { passed: 0, failed: [], skipped: 0, passedCases: [] };
  for (const file of files) {
    let cases: TestCase[];
    try {
      cases = await loadTestCases(file);
    } catch (error) {
      summary.failed.push({ file: relative(cwd, file), name: '(file)', problems: [(error as Error).message] });
      continue;
    }
    for (const tc of cases) {
      const results = await runCase(tc);
      if (results === SKIP) {
        summary.skipped += 1;
        continue;
      }
      const problems = typeof results === 'string' ? [results] : compareResults(tc.output ?? {}, results, compare);
      if (problems.length === 0) {
        summary.passed += 1;
        summary.passedCases.push({ file: relative(cwd, file), name: tc.name });
      } else summary.failed.push({ file: relative(cwd, file), name: tc.name, problems });
    }
  }
  return summary;
}

/** Failures, then the closing line "N passed, M failed[, K skipped]" alone on its line. */
export function formatSummary(summary: RunSummary): string {
  const lines = summary.failed.map((f) => `FAIL ${f.file}: ${f.name}\n  ${f.problems.join('\n  ')}`);
  lines.push(`${summary.passed} passed, ${summary.failed.length} failed${summary.skipped ? `, ${summary.skipped} skipped` : ''}`);
  return lines.join('\n') + '\n';
}
