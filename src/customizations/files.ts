// Finding customization files on disk, for the built-in tree and for user `--customizations` paths.
// A walk never leaves its root: a link (file or folder) whose real path is outside the configured folder
// is refused, not followed (decision 0014), so a link to `/` or to node_modules cannot make the server
// read other software's YAML. Links that stay inside (a ConfigMap volume's `..data`) keep working.
import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isInside, OUTSIDE_ROOT, type FoundFile } from './safe-read.ts';

const USER_EXTENSIONS = ['.yaml', '.yml', '.json'];
export const BUILTIN_FILE_NAME = 'customizations.yaml';

/**
 * Karmada's older test layout keeps a test list beside each kind's customizations.yaml: it is not a
 * customization, and a tree copied from Karmada should load without an error per kind.
 */
const KARMADA_TEST_LIST = 'customizations_tests.yaml';

/** What a walk of the user's paths found. */
export interface FoundFiles {
  /** Paths of the files found, sorted and de-duplicated. */
  files: string[];
  /** The same, each with the configured folder it was found in (none for an explicit file). */
  entries: FoundFile[];
  /** Configured paths that do not exist. */
  missing: string[];
  /** Entries inside a folder that resolve outside it: not followed, reported as load errors. */
  refused: Array<{ file: string; message: string }>;
}

const acceptUser = (name: string) => name !== KARMADA_TEST_LIST && USER_EXTENSIONS.some((ext) => name.endsWith(ext));
const skipped = (name: string) => name.startsWith('.') || name === 'testdata' || name === 'node_modules';

/**
 * User paths: an explicit file is always read (it is its own root: whatever its real path, the reader
 * still wants a regular file within the size bound); a directory is walked recursively for *.yaml,
 * *.yml and *.json. Skipped while walking: `testdata` folders (Karmada-format test cases live next to
 * the customizations they test), Karmada's `customizations_tests.yaml` lists, and entries starting with
 * `.` (a ConfigMap volume keeps each file twice, once behind `..data` and once in a timestamped
 * `..2024_...` folder). Symbolic links are followed only while their real path stays inside the folder.
 * Files that are not regular (a FIFO, a device) are listed: reading refuses them with a load error.
 */
export async function findCustomizationFiles(paths: readonly string[]): Promise<FoundFiles> {
  const walk = new Walk();
  for (const path of paths) {
    const stats = await stat(path).catch(() => undefined);
    if (!stats) walk.missing.push(path);
    else if (stats.isDirectory()) {
      const root = resolve(path);
      const rootReal = await realpath(root).catch(() => undefined);
      if (rootReal) await walkAsync(walk, root, rootReal, root, acceptUser);
    } else walk.add({ path: resolve(path) });
  }
  return walk.result();
}

/** The same walk, synchronously, for one-shot CLI commands (`check`). */
export function findCustomizationFilesSync(paths: readonly string[]): FoundFiles {
  const walk = new Walk();
  for (const path of paths) {
    const stats = statOrUndefined(path);
    if (!stats) walk.missing.push(path);
    else if (stats.isDirectory()) {
      const root = resolve(path);
      const rootReal = realOrUndefined(root);
      if (rootReal) walkSync(walk, root, rootReal, root, acceptUser);
    } else walk.add({ path: resolve(path) });
  }
  return walk.result();
}

/** Built-in customizations: every `customizations.yaml` under `root`, not under `testdata` (as Karmada's embed). */
export function findBuiltinCustomizationFiles(root: string = defaultInterpretersDir()): string[] {
  if (!statOrUndefined(root)?.isDirectory()) return [];
  const walk = new Walk();
  const rootReal = realOrUndefined(resolve(root));
  if (rootReal) walkSync(walk, resolve(root), rootReal, resolve(root), (name) => name === BUILTIN_FILE_NAME);
  return walk.result().files;
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

class Walk {
  readonly found = new Map<string, FoundFile>();
  readonly missing: string[] = [];
  readonly refused: Array<{ file: string; message: string }> = [];
  /** Real paths of the folders walked: a link back to an ancestor inside the root is walked once. */
  readonly seen = new Set<string>();

  add(entry: FoundFile): void {
    if (!this.found.has(entry.path)) this.found.set(entry.path, entry);
  }

  result(): FoundFiles {
    const files = [...this.found.keys()].sort();
    return { files, entries: files.map((file) => this.found.get(file)!), missing: this.missing, refused: this.refused };
  }
}

/**
 * One entry of a folder, with `stats` following links and `real` its real path: refused when outside
 * the root, else a folder to walk or a file found. Only names the walk would use get here, so a link to
 * `/` named `.hidden` or `notes.txt` is simply ignored.
 */
function classify(walk: Walk, root: string, rootReal: string, path: string, stats: Stats, real: string): 'walk' | 'skip' {
  if (!isInside(real, rootReal)) {
    walk.refused.push({ file: path, message: OUTSIDE_ROOT });
    return 'skip';
  }
  if (stats.isDirectory()) return 'walk';
  walk.add({ path, root });
  return 'skip';
}

async function walkAsync(walk: Walk, root: string, rootReal: string, dir: string, accept: (name: string) => boolean): Promise<void> {
  const dirReal = await realpath(dir).catch(() => undefined);
  if (dirReal === undefined || walk.seen.has(dirReal)) return;
  walk.seen.add(dirReal);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (skipped(name)) continue;
    const path = join(dir, name);
    const link = await lstat(path).catch(() => undefined);
    if (!link) continue;
    // Only a link needs resolving: anything else has the real path of its folder plus its name.
    const stats = link.isSymbolicLink() ? await stat(path).catch(() => undefined) : link;
    if (!stats || (!stats.isDirectory() && !accept(basename(path)))) continue;
    const real = link.isSymbolicLink() ? await realpath(path).catch(() => undefined) : join(dirReal, name);
    if (real === undefined) continue;
    if (classify(walk, root, rootReal, path, stats, real) === 'walk') await walkAsync(walk, root, rootReal, path, accept);
  }
}

function walkSync(walk: Walk, root: string, rootReal: string, dir: string, accept: (name: string) => boolean): void {
  const dirReal = realOrUndefined(dir);
  if (dirReal === undefined || walk.seen.has(dirReal)) return;
  walk.seen.add(dirReal);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (skipped(name)) continue;
    const path = join(dir, name);
    let link: Stats;
    try {
      link = lstatSync(path);
    } catch {
      continue;
    }
    const stats = link.isSymbolicLink() ? statOrUndefined(path) : link;
    if (!stats || (!stats.isDirectory() && !accept(basename(path)))) continue;
    const real = link.isSymbolicLink() ? realOrUndefined(path) : join(dirReal, name);
    if (real === undefined) continue;
    if (classify(walk, root, rootReal, path, stats, real) === 'walk') walkSync(walk, root, rootReal, path, accept);
  }
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
