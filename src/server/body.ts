// Reads a request body with a byte limit. Over the limit we keep only the beginning (enough to
// recover the uid for the answer) and drain the rest, so the connection stays usable and memory
// stays bounded; the exchange then answers 413 inside the envelope instead of an HTTP error.
import type { IncomingMessage } from 'node:http';

export interface LimitedBody {
  body: Buffer;
  truncatedAt?: number;
}

const KEEP_WHEN_TRUNCATED = 65536;

export function readLimitedBody(stream: IncomingMessage, limit: number): Promise<LimitedBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (truncated) return;
      if (size > limit) {
        truncated = true;
        const kept = Buffer.concat([...chunks, chunk]);
        chunks.length = 0;
        chunks.push(kept.subarray(0, KEEP_WHEN_TRUNCATED));
        return;
      }
      chunks.push(chunk);
    });
    // One chunk (most requests: a small body in one TLS record) is used as is; concat would copy it.
    const whole = () => (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    stream.on('end', () => resolve(truncated ? { body: chunks[0] ?? Buffer.alloc(0), truncatedAt: limit } : { body: whole() }));
    stream.on('error', reject);
  });
}
