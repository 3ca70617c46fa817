// Finding customization files on disk, for the built-in tree and for user `--customizations` paths.
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const USER_EXTENSIONS = ['.yaml', '.yml', '.json'];
export const BUILTIN_FILE_NAME = 'customizations.yaml';

/**
 * Karmada's older test layout keeps a test list beside each kind's customizations.yaml: it is not a
 * customization, and a tree copied from Karmada should load without an error per kind.
 */
const KARMADA_TEST_LIST = 'customizations_tests.yaml';

/**
 * User paths: an explicit file is always read; a directory is walked recursively for *.yaml, *.yml and
 * *.json. Skipped while walking: `testdata` folders (Karmada-format test cases live next to the
 * customizations they test), Karmada's `customizations_tests.yaml` lists, and entries starting with `.`
 * (a ConfigMap volume keeps each file twice, once behind `..data` and once in a timestamped
 * `..2024_...` folder). Symbolic links are followed. The result is sorted and de-duplicated; missing
 * paths are returned in `missing`.
 */
export function findCustomizationFiles(paths: readonly string[]): { files: string[]; missing: string[] } {
  const found = new Set<string>();
  const missing: string[] = [];
  const accept = (name: string) => name !== KARMADA_TEST_LIST && USER_EXTENSIONS.some((ext) => name.endsWith(ext));
  for (const path of paths) {
    const stats = statOrUndefined(path);
    if (!stats) missing.push(path);
    else if (stats.isDirectory()) walk(resolve(path), found, accept);
    else found.add(resolve(path));
  }
  return { files: [...found].sort(), missing };
}

/** Built-in customizations: every `customizations.yaml` under `root`, not under `testdata` (as Karmada's embed). */
export function findBuiltinCustomizationFiles(root: string = defaultInterpretersDir()): string[] {
  const found = new Set<string>();
  if (statOrUndefined(root)?.isDirectory()) walk(resolve(root), found, (name) => name === BUILTIN_FILE_NAME);
  return [...found].sort();
}

/** The repository's `interpreters/` folder, found from this module whether it runs from src/ or dist/src/. */
export function defaultInterpretersDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (statOrUndefined(join(dir, 'package.json'))?.isFile()) return join(dir, 'interpreters');
    const parent = dirname(dir);
    if (parent === dir) return resolve('interpreters');
    dir = parent;
  }
}

function walk(dir: string, found: Set<string>, accept: (name: string) => boolean, seen = new Set<string>()): void {
  // Symbolic links are followed, so guard against a link back to an ancestor.
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return;
  }
  if (seen.has(real)) return;
  seen.add(real);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith('.') || name === 'testdata' || name === 'node_modules') continue;
    const path = join(dir, name);
    const stats = statOrUndefined(path);
    if (stats?.isDirectory()) walk(path, found, accept, seen);
    else if (stats?.isFile() && accept(basename(path))) found.add(path);
  }
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
