// The load worker (decision 0014): reads, parses and compile-checks the customization files it is sent,
// one message back per file, so the main thread only merges plain data and builds interpreters. It runs
// under resource limits and a per-file time limit set by load-off-thread.ts, which terminates it on overrun.
import { parentPort } from 'node:worker_threads';
import { compileCheck } from '../lua/compile-check.ts';
import { loadFile } from './read-file.ts';
import type { FoundFile } from './safe-read.ts';
import type { LoadWorkerReply } from './load-off-thread.ts';

const port = parentPort!;
const post = (reply: LoadWorkerReply) => port.postMessage(reply);

port.on('message', (entries: FoundFile[]) => {
  void (async () => {
    for (let index = 0; index < entries.length; index++) post({ type: 'file', index, outcome: await loadFile(entries[index], { compileCheck }) });
    post({ type: 'done' });
  })();
});
post({ type: 'ready' });
