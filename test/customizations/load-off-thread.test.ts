// The load worker's supervision (load-off-thread.ts) with fake workers and fake timers: what a stopped
// worker still delivers after its run was decided changes nothing, so outcomes[i] is always file i's.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadOffThread, type LoadWorker, type LoadWorkerReply } from '../../src/customizations/load-off-thread.ts';
import type { FileOutcome } from '../../src/customizations/read-file.ts';
import type { FoundFile } from '../../src/customizations/safe-read.ts';

class FakeWorker extends EventEmitter implements LoadWorker {
  posted: Array<readonly FoundFile[]> = [];
  terminated = false;
  postMessage(entries: readonly FoundFile[]): void {
    this.posted.push(entries);
  }
  terminate(): Promise<number> {
    this.terminated = true;
    return Promise.resolve(1);
  }
  reply(reply: LoadWorkerReply): void {
    this.emit('message', reply);
  }
}

const outcome = (name: string): FileOutcome => ({ customizations: [], problems: [], warnings: [], failed: [], hash: name });
const entries: FoundFile[] = ['a', 'b', 'c'].map((name) => ({ path: `/c/${name}.yaml` }));

let workers: FakeWorker[];
const start = () => {
  const worker = new FakeWorker();
  workers.push(worker);
  return worker;
};

beforeEach(() => {
  vi.useFakeTimers();
  workers = [];
});
afterEach(() => {
  vi.useRealTimers();
});

describe('loadOffThread', () => {
  it('drops the outcome a worker stopped on its file timeout still delivers: every later file keeps its own', async () => {
    const loading = loadOffThread(entries, { fileTimeoutMs: 5000, startWorker: start });
    const [first] = workers;
    first.reply({ type: 'ready' });
    first.reply({ type: 'file', index: 0, outcome: outcome('a') });
    // b's time runs out just as the worker finishes it: b is refused, a new worker starts on c...
    await vi.advanceTimersByTimeAsync(5000);
    expect(first.terminated).toBe(true);
    expect(workers).toHaveLength(2);
    // ...and the outcome the old worker posted before it was terminated arrives after all.
    first.reply({ type: 'file', index: 1, outcome: outcome('b-late') });
    first.reply({ type: 'done' });
    const second = workers[1];
    second.reply({ type: 'ready' });
    expect(second.posted).toEqual([[entries[2]]]);
    second.reply({ type: 'file', index: 0, outcome: outcome('c') });
    second.reply({ type: 'done' });

    const outcomes = await loading;
    expect(outcomes.map((o) => o.hash)).toEqual([
      'a',
      expect.stringMatching(/^stopped:stopped: reading, parsing and compile-checking it took longer than 5000 ms/),
      'c',
    ]);
  });

  it('a worker ready only after its start timeout is sent nothing and arms no timer', async () => {
    const loading = loadOffThread(entries, { startTimeoutMs: 30_000, startWorker: start });
    await vi.advanceTimersByTimeAsync(30_000);
    const outcomes = await loading;
    expect(outcomes.map((o) => o.problems)).toEqual(Array(3).fill(['the customization load worker did not start in time; not read']));

    const [late] = workers;
    late.reply({ type: 'ready' });
    late.reply({ type: 'file', index: 0, outcome: outcome('a') });
    expect(late.posted).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
    expect(outcomes).toHaveLength(3);
  });

  it('gives each file its own outcome when no worker stops', async () => {
    const loading = loadOffThread(entries, { startWorker: start });
    const [worker] = workers;
    worker.reply({ type: 'ready' });
    entries.forEach((entry, index) => worker.reply({ type: 'file', index, outcome: outcome(entry.path) }));
    worker.reply({ type: 'done' });
    expect((await loading).map((o) => o.hash)).toEqual(entries.map((e) => e.path));
    expect(workers).toHaveLength(1);
  });
});
