// The recorded-exchange file format, shared by `serve --record`, `replay` and test/fixtures/:
// one JSON file per exchange with the request envelope as received and our response.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InterpreterContext, InterpreterRequest } from '../protocol/wire.ts';

/**
 * The header `replay --url` sends with every request (value "true"). A server that records skips such
 * requests: replaying recordings against a recording server must not record them again.
 */
export const REPLAY_HEADER = 'x-karmada-interpreter-replay';

/** Whether request headers (Node's lower-cased IncomingHttpHeaders) mark a replayed request. */
export function isReplayedRequest(headers: Record<string, string | string[] | undefined>): boolean {
  const value = headers[REPLAY_HEADER];
  return value !== undefined && value !== '' && value !== 'false';
}

export interface RecordedExchange {
  request: InterpreterContext;
  /** null in a fixture that has not been recorded yet (`npm run fixtures:update` fills it). */
  response: InterpreterContext | null;
  /** How long the recording server took to answer (recordings only). */
  durationMs?: number;
  /** package.json version of the server that answered (recordings only). */
  serverVersion?: string;
  /** When the exchange was answered, ISO 8601 (recordings only). */
  time?: string;
  /**
   * JSON Pointers (into this file) of the values replaced by the redaction placeholder; absent when
   * nothing was redacted. `replay` flags changes of such exchanges as possibly caused by redaction.
   */
  redacted?: string[];
}

/** The file's text: two-space JSON, keys in the order of RecordedExchange, newline at the end. */
export function exchangeText(exchange: RecordedExchange): string {
  const { request, response, durationMs, serverVersion, time, redacted, ...rest } = exchange;
  return JSON.stringify({ request, response, durationMs, serverVersion, time, redacted, ...rest }, null, 2) + '\n';
}

export async function writeExchange(file: string, exchange: RecordedExchange, flag: 'w' | 'wx' = 'w'): Promise<void> {
  await writeFile(file, exchangeText(exchange), { flag });
}

/** A path segment made only of [A-Za-z0-9._-], never empty, never "." or "..": names come from requests. */
export function safeSegment(text: string, max = 100): string {
  const cleaned = text.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, max);
  return cleaned === '' || cleaned.startsWith('.') ? `_${cleaned}` : cleaned;
}

/** `20261122T021000.123Z`: ISO 8601 without - and :, fixed width, so names sort by time. */
export function compactTime(time: Date): string {
  return time.toISOString().replace(/[-:]/g, '');
}

/**
 * Where a recording goes under the record folder: `<group>_<version>_<Kind>/<Operation>/<time>-<uid>.json`
 * (the core group is written `core`), so a sorted listing runs by kind, then operation, then time.
 */
export function recordingPath(request: InterpreterRequest, time: Date): string {
  const gvk = request.kind;
  return join(
    safeSegment(`${gvk.group || 'core'}_${gvk.version}_${gvk.kind}`, 200),
    safeSegment(request.operation),
    `${compactTime(time)}-${safeSegment(request.uid, 64)}.json`,
  );
}

const SAFE_SEGMENT = /^[A-Za-z0-9._-]+$/;
const RECORDING_FILE_NAME = /^\d{8}T\d{6}\.\d{3}Z-[A-Za-z0-9._-]{1,64}(-\d{1,3})?\.json$/;

/** A folder name recordingPath gives a kind: `<group>_<version>_<Kind>` reduced by safeSegment. */
export function isRecordingKindFolder(name: string): boolean {
  return name.length <= 200 && SAFE_SEGMENT.test(name) && !name.startsWith('.');
}

/** A folder name recordingPath gives an operation. */
export function isRecordingOperationFolder(name: string): boolean {
  return name.length <= 100 && SAFE_SEGMENT.test(name) && !name.startsWith('.');
}

/** A file name recordingPath gives (`<time>-<uid>.json`), or its numbered sibling (`-1.json` …). */
export function isRecordingFileName(name: string): boolean {
  return RECORDING_FILE_NAME.test(name);
}

export async function readExchange(file: string): Promise<RecordedExchange> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as RecordedExchange;
  if (!parsed || typeof parsed !== 'object' || !parsed.request?.request) throw new Error(`${file}: not a recorded exchange (no request.request)`);
  return parsed;
}

/** Every *.json file under the paths, sorted (names sort by kind, operation and time). */
/**
 * The *.json files under `paths`, in name order. A path given that cannot be read is an error; an entry
 * found inside a folder that cannot be read (a dangling link, a link loop) is passed to `onSkip` and left
 * out, and a folder reached again through a link is walked once, so one bad entry never stops a replay.
 */
export async function listExchangeFiles(paths: string[], onSkip: (path: string, reason: string) => void = () => {}): Promise<string[]> {
  const files: string[] = [];
  const walked = new Set<string>();
  const walk = async (path: string): Promise<void> => {
    const info = await stat(path);
    if (info.isDirectory()) {
      const id = `${info.dev}:${info.ino}`;
      if (walked.has(id)) return onSkip(path, 'a folder already walked (a link back into the tree)');
      walked.add(id);
      for (const entry of (await readdir(path)).sort()) {
        const child = join(path, entry);
        try {
          await walk(child);
        } catch (error) {
          onSkip(child, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
        }
      }
    } else if (path.endsWith('.json')) files.push(path);
  };
  for (const path of paths) await walk(path);
  return files;
}
