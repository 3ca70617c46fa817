import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLimitedBody } from '../../src/server/body.ts';

/** A request stream delivering exactly these chunks, as a socket would. */
function requestOf(chunks: Buffer[]): IncomingMessage {
  return Readable.from(chunks, { objectMode: false }) as unknown as IncomingMessage;
}

describe('readLimitedBody', () => {
  it('decodes a body split across chunks, also inside a multi-byte character', async () => {
    const text = JSON.stringify({ uid: 'u-1', name: 'zoë-€-🚀' });
    const bytes = Buffer.from(text);
    const euro = bytes.indexOf(Buffer.from('€'));
    const chunks = [bytes.subarray(0, euro + 1), bytes.subarray(euro + 1, euro + 2), bytes.subarray(euro + 2)];
    const read = await readLimitedBody(requestOf(chunks), 1024);
    expect(read).toEqual({ body: text });
  });

  it('hands on a one-chunk body as text', async () => {
    expect(await readLimitedBody(requestOf([Buffer.from('{"a":1}')]), 1024)).toEqual({ body: '{"a":1}' });
  });

  it('over the limit: keeps what had arrived (at most 64 KiB) as text, drains the rest, reports the limit', async () => {
    const head = '{"request":{"uid":"kept-uid","object":"';
    const whole = Buffer.concat([Buffer.from(head), Buffer.alloc(200_000, 'x')]);
    const chunks = Array.from({ length: Math.ceil(whole.length / 16384) }, (_, i) => whole.subarray(i * 16384, (i + 1) * 16384));
    const small = await readLimitedBody(requestOf(chunks), 10_000);
    expect(small).toEqual({ body: whole.toString('utf8', 0, 16384), truncatedAt: 10_000 });
    const large = await readLimitedBody(requestOf(chunks), 100_000);
    expect(large).toEqual({ body: whole.toString('utf8', 0, 65536), truncatedAt: 100_000 });
  });

  it('rejects when the stream fails', async () => {
    const stream = new Readable({ read() { this.destroy(new Error('socket hang up')); } });
    await expect(readLimitedBody(stream as unknown as IncomingMessage, 1024)).rejects.toThrow('socket hang up');
  });
});
