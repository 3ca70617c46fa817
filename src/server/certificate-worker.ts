// Generates the self-signed set on a worker thread. On a first start the main thread spends ~0.45 s
// importing the server while the worker spends ~0.15 s importing the ASN.1 schemas and generating; on two
// cores the two overlap instead of adding up (serve starts this before it imports the rest).
// This file is both sides: the parent's `generateOnWorker` and, when loaded as our worker, the job.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { GeneratedCertificates } from './certificates.ts';

const JOB = 'karmada-interpreter-webhook/self-signed';

/** The set generated on a worker thread; rejects when the worker cannot run (the caller then generates in-thread). */
export function generateOnWorker(extraSans: string[]): Promise<GeneratedCertificates> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { job: JOB, extraSans } });
    let answered = false;
    worker.once('message', (message: { generated?: GeneratedCertificates; error?: string }) => {
      answered = true;
      if (message.generated) resolve(message.generated);
      else reject(new Error(message.error ?? 'the certificate worker failed'));
    });
    worker.once('error', (error) => {
      answered = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the certificate worker exited with ${code} before answering`));
    });
  });
}

// vitest and others run code in worker threads too: only the job's own marker starts the work.
if (!isMainThread && (workerData as { job?: string } | null)?.job === JOB) {
  const { extraSans } = workerData as { extraSans: string[] };
  try {
    const { generateSelfSigned } = await import('./certificates.ts');
    parentPort!.postMessage({ generated: await generateSelfSigned(extraSans) });
  } catch (error) {
    parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
}
