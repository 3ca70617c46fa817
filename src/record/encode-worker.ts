// The recorder's encoding, on its own thread: redacting and printing a recorded exchange takes tens of
// milliseconds for a large request, which the main thread must spend answering Karmada instead. Each
// message is one exchange; the answer is the file's bytes, moved to the main thread without a copy.
import { parentPort } from 'node:worker_threads';
import { CONTEXT_API_VERSION, CONTEXT_KIND } from '../protocol/wire.ts';
import { exchangeText, type RecordedExchange } from './format.ts';
import { redactExchange } from './redact.ts';

export interface EncodeRequest {
  id: number;
  /** The request body as received, when the server had it; otherwise `recorded.request` is used. */
  requestText?: string;
  recorded: Omit<RecordedExchange, 'request'> & { request?: RecordedExchange['request'] };
  keepSecrets: boolean;
}

export type EncodeReply = { id: number; bytes: Uint8Array } | { id: number; error: string };

const encoder = new TextEncoder();

parentPort?.on('message', (message: EncodeRequest) => {
  try {
    const request =
      message.requestText === undefined
        ? message.recorded.request!
        : { apiVersion: CONTEXT_API_VERSION, kind: CONTEXT_KIND, request: JSON.parse(message.requestText).request };
    const recorded: RecordedExchange = { ...message.recorded, request };
    const bytes = encoder.encode(exchangeText(message.keepSecrets ? recorded : redactExchange(recorded)));
    parentPort!.postMessage({ id: message.id, bytes } satisfies EncodeReply, [bytes.buffer]);
  } catch (error) {
    parentPort!.postMessage({ id: message.id, error: (error as Error).message } satisfies EncodeReply);
  }
});
