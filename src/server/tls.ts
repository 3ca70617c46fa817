// Serving certificate source and rotation. Kubernetes updates Secret volumes with an atomic symlink
// swap (..data -> ..<timestamp>), so watching the files themselves goes stale after the first
// rotation: we watch the directory, debounce, re-read key and certificate together, check that they
// belong together, and keep the last good pair when a new one is broken. A periodic poll is the
// backstop for file systems where watch events are lost (as controller-runtime's watcher does).
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface KeyPair {
  cert: string;
  key: string;
  /** Expiry of the leaf certificate (for the metric and logs). */
  notAfter: Date;
  fingerprint: string;
}

/** Reads and checks a pair; throws with a clear message when it is unusable. */
export async function readKeyPair(certFile: string, keyFile: string): Promise<KeyPair> {
  const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (error) {
    throw new Error(`${certFile} is not a PEM certificate: ${(error as Error).message}`, { cause: error });
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch (error) {
    throw new Error(`${keyFile} is not a PEM private key: ${(error as Error).message}`, { cause: error });
  }
  if (!x509.checkPrivateKey(privateKey)) throw new Error(`${keyFile} does not match the certificate in ${certFile}`);
  return {
    cert,
    key,
    notAfter: new Date(x509.validTo),
    fingerprint: createHash('sha256')
      .update(cert + key)
      .digest('hex'),
  };
}

export interface WatcherEvents {
  onReload(pair: KeyPair): void;
  onError(error: Error): void;
}

/** Watches a certificate/key pair and reports every change that yields a valid new pair. */
export class CertificateWatcher {
  private readonly watchers: FSWatcher[] = [];
  private poll?: NodeJS.Timeout;
  private debounce?: NodeJS.Timeout;
  private current: string;
  private reloading = Promise.resolve();

  private readonly certFile: string;
  private readonly keyFile: string;
  private readonly events: WatcherEvents;
  private readonly options: { pollMs?: number; debounceMs?: number };

  constructor(certFile: string, keyFile: string, initial: KeyPair, events: WatcherEvents, options: { pollMs?: number; debounceMs?: number } = {}) {
    this.certFile = certFile;
    this.keyFile = keyFile;
    this.events = events;
    this.options = options;
    this.current = initial.fingerprint;
  }

  start(): void {
    for (const dir of new Set([dirname(this.certFile), dirname(this.keyFile)])) {
      try {
        const watcher = watch(dir, () => this.schedule());
        watcher.on('error', () => undefined); // the poll below keeps us covered
        this.watchers.push(watcher);
      } catch {
        // Directory not watchable (some network file systems): the poll still works.
      }
    }
    this.poll = setInterval(() => this.schedule(), this.options.pollMs ?? 10_000);
    this.poll.unref();
  }

  private schedule(): void {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.reloading = this.reloading.then(() => this.check());
    }, this.options.debounceMs ?? 200);
    this.debounce.unref();
  }

  /** Re-reads the pair now; resolves after any reload it triggers. */
  async check(): Promise<void> {
    let pair: KeyPair;
    try {
      pair = await readKeyPair(this.certFile, this.keyFile);
    } catch (error) {
      // Mid-rotation the two files can briefly disagree; a later event or the poll picks up the final state.
      if (this.isChanged(error)) this.events.onError(error as Error);
      return;
    }
    if (pair.fingerprint === this.current) return;
    this.current = pair.fingerprint;
    this.lastError = undefined;
    this.events.onReload(pair);
  }

  private lastError?: string;
  private isChanged(error: unknown): boolean {
    const message = (error as Error).message;
    if (message === this.lastError) return false;
    this.lastError = message;
    return true;
  }

  close(): void {
    for (const watcher of this.watchers) watcher.close();
    clearInterval(this.poll);
    clearTimeout(this.debounce);
  }
}
