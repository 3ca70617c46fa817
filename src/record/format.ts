// The recorded-exchange file format, shared by `serve --record`, `replay` and test/fixtures/:
// one JSON file per exchange with the request envelope as received and our response.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { InterpreterContext } from '../protocol/wire.js';

export interface RecordedExchange {
  request: InterpreterContext;
  /** null in a fixture that has not been recorded yet (`npm run fixtures:update` fills it). */
  response: InterpreterContext | null;
  durationMs?: number;
  serverVersion?: string;
  time?: string;
}

export async function readExchange(file: string): Promise<RecordedExchange> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as RecordedExchange;
  if (!parsed || typeof parsed !== 'object' || !parsed.request?.request) throw new Error(`${file}: not a recorded exchange (no request.request)`);
  return parsed;
}

/** Every *.json file under the paths, sorted (names sort by kind, operation and time). */
export async function listExchangeFiles(paths: string[]): Promise<string[]> {
  const files: string[] = [];
  const walk = async (path: string): Promise<void> => {
    if ((await stat(path)).isDirectory()) {
      for (const entry of (await readdir(path)).sort()) await walk(join(path, entry));
    } else if (path.endsWith('.json')) files.push(path);
  };
  for (const path of paths) await walk(path);
  return files;
}
