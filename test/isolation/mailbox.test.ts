import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { frame, Mailbox, pollWindowMs, unframe } from '../../src/isolation/mailbox.ts';

/** Both ends of one mailbox, on this thread: the protocol without the concurrency. */
function pair(capacity = 64) {
  const buffer = Mailbox.allocate(capacity);
  return { receiver: new Mailbox(buffer), sender: new Mailbox(buffer) };
}

describe('Mailbox', () => {
  it('takes a message only while its receiver waits, and each message once', () => {
    const { receiver, sender } = pair();
    expect(sender.deliver('early')).toBe(false); // closed: the sender uses the port
    expect(receiver.open()).toBe(true);
    expect(receiver.take()).toBeUndefined();
    expect(sender.deliver('é☃😀 {"a":1}')).toBe(true);
    expect(sender.deliver('second')).toBe(false); // full until taken
    expect(receiver.take()).toBe('é☃😀 {"a":1}');
    expect(receiver.take()).toBeUndefined();
    expect(sender.deliver('after')).toBe(false); // taking closes it
  });

  it('hands over a message delivered just before the receiver stopped waiting', () => {
    const { receiver, sender } = pair();
    receiver.open();
    expect(sender.deliver('just in time')).toBe(true);
    expect(receiver.close()).toBe('just in time');
    receiver.open();
    expect(receiver.close()).toBeUndefined();
    expect(sender.deliver('too late')).toBe(false);
  });

  it('leaves a message that does not fit to the port', () => {
    const { receiver, sender } = pair(8);
    receiver.open();
    expect(sender.deliver('123456789')).toBe(false);
    expect(sender.deliver('ééééé')).toBe(false); // 5 characters, 10 bytes
    expect(sender.deliver('12345678')).toBe(true);
    expect(receiver.take()).toBe('12345678');
  });

  it('stops a waiting receiver when the next message comes by the port, until it has taken that one', () => {
    const { receiver, sender } = pair();
    receiver.open();
    sender.redirect();
    expect(receiver.close()).toBeUndefined();
    expect(receiver.open()).toBe(false);
    expect(sender.deliver('not here')).toBe(false);
    let clockReads = 0;
    expect(receiver.wait(1000, () => ++clockReads)).toBeUndefined();
    expect(clockReads).toBe(0); // returned without spinning
    receiver.tookFromPort();
    expect(receiver.open()).toBe(true);
    expect(sender.deliver('here again')).toBe(true);
    expect(receiver.take()).toBe('here again');
  });

  it('waits until its window has passed when nothing comes', () => {
    const { receiver, sender } = pair();
    let now = 0;
    expect(receiver.wait(3, () => (now += 0.5))).toBeUndefined();
    expect(now).toBeGreaterThanOrEqual(3);
    expect(sender.deliver('late')).toBe(false); // the receiver is no longer waiting
  });

  it('carries messages between two threads in order, exactly, each through the mailbox or not at all', async () => {
    const toWorker = Mailbox.allocate(1024);
    const toMain = Mailbox.allocate(1024);
    // The worker echoes every message it takes at its mailbox, reversed, into the other mailbox.
    const echo = new Worker(new URL('./mailbox-echo-worker.ts', import.meta.url), { workerData: { toWorker, toMain } });
    try {
      const send = new Mailbox(toWorker);
      const receive = new Mailbox(toMain);
      const sent: string[] = [];
      const echoed: string[] = [];
      for (let i = 0; i < 300; i++) {
        const text = `message ${i} ${'☃'.repeat(i % 50)}`;
        receive.open();
        // The worker may not be waiting yet: a real sender would use the port then; here it tries again.
        while (!send.deliver(text)) await new Promise((resolve) => setImmediate(resolve));
        sent.push(text);
        let answer: string | undefined;
        while ((answer = receive.take()) === undefined) await new Promise((resolve) => setImmediate(resolve));
        echoed.push(answer);
      }
      expect(echoed).toEqual(sent.map((text) => [...text].reverse().join('')));
    } finally {
      await echo.terminate();
    }
  });
});

describe('frame', () => {
  it('carries a header and a payload, newlines and all', () => {
    const text = frame({ id: 7, note: 'line\nbreak' }, '{"a":"x\\ny"}\n[1]');
    expect(unframe(text)).toEqual({ header: { id: 7, note: 'line\nbreak' }, payload: '{"a":"x\\ny"}\n[1]' });
    expect(unframe(frame({ ready: true }))).toEqual({ header: { ready: true }, payload: '' });
  });
});

describe('pollWindowMs', () => {
  it('polls for the whole window when the last wait was within it', () => {
    expect(pollWindowMs(0, 3)).toBe(3);
    expect(pollWindowMs(0.2, 3)).toBe(3);
    expect(pollWindowMs(1.2, 3)).toBe(3);
    expect(pollWindowMs(3, 3)).toBe(3);
  });

  it('does not poll after a long wait (sparse calls) or before any (no estimate yet)', () => {
    expect(pollWindowMs(3.01, 3)).toBe(0);
    expect(pollWindowMs(250, 3)).toBe(0);
    expect(pollWindowMs(Infinity, 3)).toBe(0);
  });
});
