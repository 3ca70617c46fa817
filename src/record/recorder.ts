// `serve --record DIR`: writes every interpreter exchange to DIR as one file (src/record/format.ts).
// Recording must never cost Karmada anything: record() only appends to an in-memory queue bounded in
// entries and in bytes (called from buildApp's onExchange, after the response is sent); one background
// loop redacts, serialises and writes. A full queue drops the exchange, a failing disk drops the file;
// both are counted in karmada_interpreter_record_failures_total and logged once per outage. Rotation
// deletes only files of this server's own layout (isRecordingPath), never anything else under DIR.
import { mkdir, readdir, unlink, writeFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry as PromRegistry } from 'prom-client';
import type { Exchange } from '../protocol/exchange.ts';
import { CONTEXT_API_VERSION, CONTEXT_KIND } from '../protocol/wire.ts';
import { isRecordingFileName, isRecordingKindFolder, isRecordingOperationFolder, recordingPath, type RecordedExchange } from './format.ts';
import type { EncodeReply, EncodeRequest } from './encode-worker.ts';
import { serverVersion } from './server-version.ts';

export const DEFAULT_RECORD_MAX_FILES = 10_000;
export const DEFAULT_RECORD_QUEUE_SIZE = 1_000;
/**
 * Bytes of exchanges (their JSON size, request and response) waiting to be written. An exchange larger
 * than this is still taken when nothing else waits, so the queue holds at most this or one request.
 */
export const DEFAULT_RECORD_QUEUE_BYTES = 64 * 1024 * 1024;

export { isReplayedRequest, REPLAY_HEADER } from './format.ts';

/** What the caller knows about an exchange besides the exchange itself. */
export interface RecordMeta {
  /** The request came from `replay` (REPLAY_HEADER): not recorded. */
  replayed?: boolean;
  /** The request body's size in bytes, when known; otherwise the recorder estimates it. */
  requestBytes?: number;
  /** The request body as received: encoded from this text instead of the parsed request. */
  requestText?: string;
}

export interface RecorderOptions {
  dir: string;
  logger: Logger;
  /** Most files kept in DIR (existing recordings included); the oldest are deleted first. */
  maxFiles?: number;
  /** Exchanges waiting to be written; beyond this new ones are dropped (and counted). */
  queueSize?: number;
  /** Bytes waiting to be written (DEFAULT_RECORD_QUEUE_BYTES); beyond this new ones are dropped (and counted). */
  queueBytes?: number;
  /** Write secrets as received (`--record-keep-secrets`); default redacts (src/record/redact.ts). */
  keepSecrets?: boolean;
  /** Where the recorder's metrics are registered (the server's /metrics registry). */
  metricsRegistry?: PromRegistry;
  now?: () => Date;
}

type FailureReason = 'queue_full' | 'write' | 'rotate';

interface Pending {
  exchange: Exchange;
  durationMs: number;
  time: Date;
  bytes: number;
  requestText?: string;
}

/** Encodes exchanges on one worker thread (encode-worker.ts), started with the first exchange. */
class Encoder {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (bytes: Uint8Array) => void; reject: (error: Error) => void }>();

  /** The recording file's bytes (UTF-8). */
  encode(requestText: string | undefined, recorded: RecordedExchange, keepSecrets: boolean): Promise<Uint8Array> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.ref();
      const message: EncodeRequest = { id, requestText, recorded: requestText === undefined ? recorded : { ...recorded, request: undefined }, keepSecrets };
      worker.postMessage(message);
    });
  }

  private start(): Worker {
    const url = new URL(import.meta.url.endsWith('.ts') ? './encode-worker.ts' : './encode-worker.js', import.meta.url);
    const worker = new Worker(url);
    worker.unref();
    worker.on('message', (reply: EncodeReply) => {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      if ('bytes' in reply) waiter?.resolve(reply.bytes);
      else waiter?.reject(new Error(reply.error));
    });
    // A worker that dies fails what it was encoding; the next exchange starts a new one.
    worker.on('error', (error: Error) => this.failAll(error));
    worker.on('exit', () => {
      this.worker = undefined;
      this.failAll(new Error('the recording encoder stopped'));
    });
    return worker;
  }

  private failAll(error: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}

export class ExchangeRecorder {
  readonly dir: string;
  private readonly maxFiles: number;
  private readonly queueSize: number;
  private readonly queueBytes: number;
  /** Bytes of the queued exchanges and of the one being written. */
  private pendingBytes = 0;
  private writing = false;
  private readonly keepSecrets: boolean;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly queue: Pending[] = [];
  /** Recordings in DIR, oldest first: what rotation deletes from. */
  private files: string[] = [];
  /** Rotation waits for the scan of existing recordings; writing does not (a big folder takes a while). */
  private scanDone = false;
  private readonly scanned: Promise<void>;
  private worker: Promise<void> | undefined;
  /** Failure reasons already logged in the current outage (log once, not once per request). */
  private readonly loggedFailures = new Set<FailureReason>();
  /** Folders known to exist, to spare a mkdir per file (forgotten after any write failure). */
  private readonly folders = new Set<string>();
  private readonly failuresTotal: Counter<'reason'>;
  private readonly recordedTotal: Counter;
  readonly counts = { recorded: 0, dropped: 0, failed: 0, replayed: 0 };
  private readonly encoder = new Encoder();

  constructor(options: RecorderOptions) {
    this.dir = options.dir;
    this.maxFiles = options.maxFiles ?? DEFAULT_RECORD_MAX_FILES;
    this.queueSize = options.queueSize ?? DEFAULT_RECORD_QUEUE_SIZE;
    this.queueBytes = options.queueBytes ?? DEFAULT_RECORD_QUEUE_BYTES;
    this.keepSecrets = options.keepSecrets ?? false;
    this.logger = options.logger;
    this.now = options.now ?? (() => new Date());
    const registers = options.metricsRegistry ? [options.metricsRegistry] : [];
    this.failuresTotal = new Counter({
      name: 'karmada_interpreter_record_failures_total',
      help: 'Exchanges not recorded (serve --record), by reason: queue_full (dropped), write (disk full or unwritable), rotate (an old file could not be deleted).',
      labelNames: ['reason'] as const,
      registers,
    });
    // Every reason exported from the start (at 0), so an alert can watch the series before it moves.
    for (const reason of ['queue_full', 'write', 'rotate'] as const) this.failuresTotal.labels(reason).inc(0);
    this.recordedTotal = new Counter({
      name: 'karmada_interpreter_recorded_exchanges_total',
      help: 'Exchanges written to the record folder (serve --record).',
      registers,
    });
    const queue = this.queue;
    new Gauge({
      name: 'karmada_interpreter_record_queue_length',
      help: 'Exchanges waiting to be written to the record folder.',
      registers,
      collect() {
        this.set(queue.length);
      },
    });
    this.scanned = this.scanExisting();
  }

  /**
   * Queues one exchange; never throws, never waits. Exchanges without a readable request, and replayed
   * ones (meta.replayed), are skipped.
   */
  record(exchange: Exchange, durationMs: number, meta: RecordMeta = {}): void {
    try {
      if (!exchange.request) return;
      if (meta.replayed) {
        this.counts.replayed += 1;
        return;
      }
      const idle = this.queue.length === 0 && !this.writing;
      // Past the byte room the estimate stops counting: the exchange is dropped either way.
      const room = idle ? Infinity : this.queueBytes - this.pendingBytes;
      const bytes =
        meta.requestBytes !== undefined
          ? meta.requestBytes + estimateJsonBytes(exchange.response, room)
          : estimateJsonBytes(exchange.request, room) + estimateJsonBytes(exchange.response, room);
      if (this.queue.length >= this.queueSize || bytes > room) {
        this.counts.dropped += 1;
        this.fail('queue_full', undefined, 'record queue is full; dropping exchanges until the disk catches up');
        return;
      }
      this.pendingBytes += bytes;
      this.queue.push({ exchange, durationMs, time: this.now(), bytes, requestText: meta.requestText });
      this.worker ??= this.drain();
    } catch (error) {
      this.fail('write', error, 'could not queue an exchange for recording');
    }
  }

  /** Resolves when every queued exchange has been written (or failed): for shutdown and tests. */
  async flush(): Promise<void> {
    await this.scanned;
    while (this.worker) await this.worker;
  }

  private async scanExisting(): Promise<void> {
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      const listed = await listRecordings(this.dir);
      const written = new Set(this.files); // files written while the scan ran are listed already
      const existing = listed.filter((file) => !written.has(file));
      // Recording names start with a fixed-width time, so the base name orders them by age.
      existing.sort((a, b) => basename(a).localeCompare(basename(b)));
      this.files = [...existing, ...this.files];
    } catch (error) {
      this.fail('write', error, 'record folder is not usable; exchanges will not be recorded until it is');
    }
    this.scanDone = true;
    this.worker ??= this.drain(); // rotate what the scan found
  }

  private async drain(): Promise<void> {
    try {
      for (let item = this.queue.shift(); item; item = this.queue.shift()) {
        this.writing = true;
        try {
          const file = await this.write(item);
          this.files.push(file);
          this.counts.recorded += 1;
          this.recordedTotal.inc();
          if (this.loggedFailures.delete('write')) this.logger.info({ dir: this.dir }, 'recording exchanges again');
          this.loggedFailures.delete('queue_full');
        } catch (error) {
          this.counts.failed += 1;
          this.folders.clear();
          this.fail('write', error, 'could not write a recorded exchange; requests are answered as usual');
        } finally {
          this.writing = false;
          this.pendingBytes -= item.bytes;
        }
        await this.rotate();
      }
      await this.rotate();
    } finally {
      this.worker = undefined;
    }
  }

  private async write(item: Pending): Promise<string> {
    const request = item.exchange.request!;
    const recorded: RecordedExchange = {
      request: { apiVersion: CONTEXT_API_VERSION, kind: CONTEXT_KIND, request },
      response: item.exchange.response,
      durationMs: Math.round(item.durationMs * 1000) / 1000,
      serverVersion: serverVersion(),
      time: item.time.toISOString(),
    };
    const bytes = await this.encoder.encode(item.requestText, recorded, this.keepSecrets);
    const path = join(this.dir, recordingPath(request, item.time));
    const folder = dirname(path);
    if (!this.folders.has(folder)) await mkdir(folder, { recursive: true, mode: 0o700 });
    this.folders.add(folder);
    // The same uid in the same millisecond (a retried call) gets a numbered sibling, never an overwrite.
    let recreated = false;
    for (let attempt = 0; ;) {
      const file = attempt === 0 ? path : path.replace(/\.json$/, `-${attempt}.json`);
      try {
        await writeFile(file, bytes, { flag: 'wx', mode: 0o600 });
        return file;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' && !recreated) {
          // Someone removed the folder (e.g. cleaned up recordings): create it again once.
          recreated = true;
          await mkdir(folder, { recursive: true, mode: 0o700 });
        } else if (code === 'EEXIST' && attempt < 100) attempt += 1;
        else throw error;
      }
    }
  }

  private async rotate(): Promise<void> {
    if (!this.scanDone) return;
    while (this.files.length > this.maxFiles) {
      const oldest = this.files.shift()!;
      try {
        await unlink(oldest);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.fail('rotate', error, 'could not delete the oldest recording');
      }
    }
  }

  private fail(reason: FailureReason, error: unknown, message: string): void {
    this.failuresTotal.inc({ reason });
    if (this.loggedFailures.has(reason)) return;
    this.loggedFailures.add(reason);
    this.logger.error({ err: error, dir: this.dir, reason }, message);
  }
}

/**
 * The recordings under `dir`: only `DIR/<group>_<version>_<Kind>/<Operation>/<time>-<uid>.json`, real
 * folders and regular files named as this server names them (symbolic links are not followed). Nothing
 * else under DIR is ever listed, so rotation cannot delete it.
 */
export async function listRecordings(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const kind of await readdir(dir, { withFileTypes: true })) {
    if (!kind.isDirectory() || !isRecordingKindFolder(kind.name)) continue;
    const kindPath = join(dir, kind.name);
    for (const operation of await readdir(kindPath, { withFileTypes: true })) {
      if (!operation.isDirectory() || !isRecordingOperationFolder(operation.name)) continue;
      const operationPath = join(kindPath, operation.name);
      for (const file of await readdir(operationPath, { withFileTypes: true })) {
        if (file.isFile() && isRecordingFileName(file.name)) files.push(join(operationPath, file.name));
      }
    }
  }
  return files;
}

/**
 * The size of `value` as JSON, approximately (strings by their length, a few bytes per punctuation),
 * without serialising it; counting stops once it passes `limit`.
 */
export function estimateJsonBytes(value: unknown, limit = Infinity): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && bytes <= limit) {
    const item = stack.pop();
    if (typeof item === 'string') bytes += item.length + 2;
    else if (Array.isArray(item)) {
      bytes += 2 + item.length;
      for (const child of item) stack.push(child);
    } else if (item !== null && typeof item === 'object') {
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record);
      bytes += 2 + keys.length;
      for (const key of keys) {
        bytes += key.length + 3;
        stack.push(record[key]);
      }
    } else bytes += 8;
  }
  return bytes;
}
