// The main thread's side of the load worker (load-worker.ts): one worker per load, sent the files, each
// answered by one message. Parsing a file may take any time or memory the file asks for, so the worker
// runs with V8 resource limits and a time limit per file: on overrun it is terminated, that file gets a
// load error naming the limit, and a fresh worker carries on with the files after it. Nothing here blocks
// the main thread, which keeps serving the last good set meanwhile.
import { Worker } from 'node:worker_threads';
import type { FileOutcome } from './read-file.ts';
import type { FoundFile } from './safe-read.ts';

export type LoadWorkerReply = { type: 'ready' } | { type: 'done' } | { type: 'file'; index: number; outcome: FileOutcome };

export interface LoadWorkerLimits {
  /** Longest a worker may take over one file (reading, parsing, compile checks). */
  fileTimeoutMs?: number;
  /** Old-generation heap of the worker: what parsing one file may build. */
  heapMb?: number;
  /** Longest a worker may take to start (load its modules). */
  startTimeoutMs?: number;
  /** Starts each load worker: a real one unless a test passes its own. */
  startWorker?: StartLoadWorker;
}

export const DEFAULT_FILE_TIMEOUT_MS = 5000;
/** Room to parse and compile the largest file read (1 MiB; decision 0017 has what one takes). */
export const DEFAULT_HEAP_MB = 96;
/** The load worker's young generation, beside DEFAULT_HEAP_MB (both count in src/server/memory-fit.ts). */
export const YOUNG_GENERATION_MB = 16;
const DEFAULT_START_TIMEOUT_MS = 30_000;

// The worker runs from its TypeScript source where this module does (tests, `node src/cli.ts`), else the build.
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './load-worker.ts' : './load-worker.js', import.meta.url);

/** What loadOffThread needs of a load worker: a `node:worker_threads` Worker, or a test's fake. */
export interface LoadWorker {
  on(event: 'message', listener: (reply: LoadWorkerReply) => void): unknown;
  on(event: 'error', listener: (error: Error & { code?: string }) => void): unknown;
  on(event: 'exit', listener: () => void): unknown;
  postMessage(entries: readonly FoundFile[]): void;
  terminate(): Promise<unknown>;
}

/** Starts a load worker whose old generation may grow to `heapMb`. */
export type StartLoadWorker = (heapMb: number) => LoadWorker;

export const startLoadWorker: StartLoadWorker = (heapMb) =>
  new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB, stackSizeMb: 4 } });

/** Loads `entries` on load workers; one outcome per entry, in order. */
export async function loadOffThread(entries: readonly FoundFile[], limits: LoadWorkerLimits = {}): Promise<FileOutcome[]> {
  const start = limits.startWorker ?? startLoadWorker;
  const outcomes: FileOutcome[] = [];
  while (outcomes.length < entries.length) {
    const offset = outcomes.length;
    const rest = entries.slice(offset);
    // Each outcome goes to the slot of the file it answers, so outcomes[i] is always entries[i]'s.
    const run = await runWorker(rest, limits, start, (index, outcome) => {
      if (offset + index < entries.length) outcomes[offset + index] = outcome;
    });
    if (run.stopped === undefined) continue;
    // The worker stopped on the file it was working on (the first without an outcome), or before it started.
    const message = run.started ? run.stopped : `${run.stopped}; not read`;
    const refused = (text: string): FileOutcome => ({ customizations: [], problems: [text], warnings: [], failed: [], hash: `stopped:${text}` });
    if (!run.started) {
      while (outcomes.length < entries.length) outcomes.push(refused(message));
    } else if (outcomes.length < entries.length) outcomes.push(refused(message));
  }
  return outcomes;
}

interface Run {
  started: boolean;
  /** Why the worker stopped before answering every file. */
  stopped?: string;
}

function runWorker(
  entries: readonly FoundFile[],
  limits: LoadWorkerLimits,
  start: StartLoadWorker,
  onOutcome: (index: number, outcome: FileOutcome) => void,
): Promise<Run> {
  const fileTimeoutMs = limits.fileTimeoutMs ?? DEFAULT_FILE_TIMEOUT_MS;
  const heapMb = limits.heapMb ?? DEFAULT_HEAP_MB;
  const worker = start(heapMb);
  return new Promise<Run>((resolve) => {
    let started = false;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (ms: number, why: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(why), ms);
    };
    const finish = (stopped?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(stopped === undefined ? { started } : { started, stopped });
    };
    const overTime = `stopped: reading, parsing and compile-checking it took longer than ${fileTimeoutMs} ms (the limit of one customization file)`;
    arm(limits.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS, 'the customization load worker did not start in time');
    worker.on('message', (reply: LoadWorkerReply) => {
      // A stopped worker's messages posted before terminate() still arrive: the run has been decided
      // (the file it was on refused, a new worker on the next one), so they must change nothing.
      if (settled) return;
      if (reply.type === 'ready') {
        started = true;
        worker.postMessage(entries);
        arm(fileTimeoutMs, overTime);
      } else if (reply.type === 'file') {
        onOutcome(reply.index, reply.outcome);
        arm(fileTimeoutMs, overTime);
      } else finish();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        finish(`stopped: parsing it took more than the ${heapMb} MiB of memory a customization file may take`);
      } else finish(`stopped: the customization load worker failed: ${error.message}`);
    });
    worker.on('exit', () => finish('stopped: the customization load worker exited'));
  });
}
