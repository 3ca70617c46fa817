// The first start generates its self-signed set on a worker thread. The worker runs compiled code
// (dist/, which `npm ci` builds through `prepare`), so this test loads the built module; under vitest
// the sources cannot start a TypeScript worker and the store generates in-thread (self-signed-store.test.ts).
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const built = new URL('../../dist/src/server/certificate-worker.js', import.meta.url);

describe.skipIf(!existsSync(fileURLToPath(built)))('self-signed generation on a worker thread (dist/)', () => {
  it('answers with a CA and a serving certificate for the default and extra SANs, signed by that CA', async () => {
    const { generateOnWorker } = (await import(built.href)) as typeof import('../../src/server/certificate-worker.ts');
    const generated = await generateOnWorker(['interpreter.example', '10.1.2.3']);
    const ca = new X509Certificate(generated.caPem);
    const leaf = new X509Certificate(generated.certPem);
    expect(ca.ca).toBe(true);
    expect(leaf.checkIssued(ca) && leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkPrivateKey(createPrivateKey(generated.keyPem))).toBe(true);
    expect(leaf.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:interpreter.example, IP Address:10.1.2.3');
  });
});
