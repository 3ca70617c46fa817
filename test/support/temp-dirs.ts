// Temporary directories a test file creates, removed when the file's tests are done:
// `const temp = tempDirs(); afterAll(temp.remove);` then `await temp.make('kiw-x-')`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempDirs() {
  const made: string[] = [];
  return {
    make(prefix: string): string {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    remove(): void {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
