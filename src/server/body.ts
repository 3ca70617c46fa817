// Reads a request body with a byte limit. Over the limit we keep only the beginning (enough to
// recover the uid for the answer) and drain the rest, so the connection stays usable and memory
// stays bounded; the exchange then answers 413 inside the envelope instead of an HTTP error.
//
// The body is handed on as a string, and the chunks are let go as soon as it is decoded: a request
// that waits for its turn (a Lua call queued behind others) would otherwise pin its socket chunks and
// their concatenation as external memory until it is answered. Under saturation with 50-cluster
// bodies that was 17-41 MB of array buffers at the Lua server's peak, 0-3 MB now; at 200 connections
// the garbage moves into the old generation instead and the peak stays (bench/README.md, "Memory").
import type { IncomingMessage } from 'node:http';

export interface LimitedBody {
  /** The body as UTF-8 text; when truncated, only what had arrived when it crossed the limit, at most KEEP_WHEN_TRUNCATED bytes. */
  body: string;
  truncatedAt?: number;
}

const KEEP_WHEN_TRUNCATED = 65536;

export function readLimitedBody(stream: IncomingMessage, limit: number): Promise<LimitedBody> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let kept: string | undefined;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (kept !== undefined) return;
      if (size > limit) {
        kept = Buffer.concat([...chunks, chunk]).toString('utf8', 0, KEEP_WHEN_TRUNCATED);
        chunks = [];
        return;
      }
      chunks.push(chunk);
    });
    stream.on('end', () => {
      if (kept !== undefined) return resolve({ body: kept, truncatedAt: limit });
      // One chunk (most requests: a small body in one TLS record) is decoded as is; concat would copy it.
      const body = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8');
      chunks = [];
      resolve({ body });
    });
    stream.on('error', reject);
  });
}
