// The version of this server (package.json), stamped into recorded exchanges so a replay report can
// say which build answered originally.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** package.json `version`, found from this module whether it runs from src/ or dist/src/. */
export function serverVersion(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string };
      cached = pkg.version ?? 'unknown';
      return cached;
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return (cached = 'unknown');
      dir = parent;
    }
  }
}
