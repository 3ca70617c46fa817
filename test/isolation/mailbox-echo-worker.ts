// For mailbox.test.ts: takes each message at its mailbox and answers it reversed through the other one.
import { workerData } from 'node:worker_threads';
import { Mailbox } from '../../src/isolation/mailbox.ts';

const { toWorker, toMain } = workerData as { toWorker: SharedArrayBuffer; toMain: SharedArrayBuffer };
const inbox = new Mailbox(toWorker);
const outbox = new Mailbox(toMain);
for (;;) {
  const text = inbox.wait(60_000);
  if (text === undefined) continue;
  // The test opens its mailbox before sending, so the answer always fits and finds it open.
  if (!outbox.deliver([...text].reverse().join(''))) throw new Error('the answer found the mailbox closed');
}
