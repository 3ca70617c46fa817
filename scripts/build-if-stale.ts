// `npm start` runs this first: compiles to dist/ only when a source is newer than the last build, so a
// restart does not pay for a TypeScript build (several seconds on a small machine) it does not need.
// A folder's mtime changes when a file is added, removed or renamed in it, so walking folders too
// catches those. The playground's page is bundled with the same trigger. After a build the build-info file is touched, as tsc leaves it alone when no output changed.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildPlaygroundAssets } from '../web/playground/build.ts';

const ROOT = resolve(import.meta.dirname, '..');
const BUILD_INFO = join(ROOT, 'dist', '.tsbuildinfo');
const INPUTS = ['src', 'web', 'interpreters', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The newest modification time (ms) of a file or folder tree; 0 when it does not exist. */
export function newestChange(path: string): number {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  let newest = stats.mtimeMs;
  if (stats.isDirectory()) {
    for (const name of readdirSync(path)) {
      if (name === 'node_modules' || name === 'testdata') continue;
      newest = Math.max(newest, newestChange(join(path, name)));
    }
  }
  return newest;
}

/** Why a build is needed, or undefined when dist/ is newer than every input. */
export function staleReason(root = ROOT): string | undefined {
  const built = newestChange(join(root, 'dist', '.tsbuildinfo'));
  if (built === 0) return 'no build yet';
  const changed = INPUTS.find((input) => newestChange(join(root, input)) > built);
  return changed === undefined ? undefined : `${changed} changed since the last build`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const reason = staleReason();
  if (reason === undefined) {
    process.stdout.write('dist/ is up to date with the sources; not rebuilding (npm run build forces a clean build)\n');
  } else {
    process.stdout.write(`building dist/ (${reason})\n`);
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
    if (result.status !== 0) process.exit(result.status ?? 1);
    // The page of `playground` (dist/playground), from web/playground/.
    await buildPlaygroundAssets(ROOT);
    const now = new Date();
    utimesSync(BUILD_INFO, now, now);
  }
}
