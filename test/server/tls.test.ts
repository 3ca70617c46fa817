// TLS end to end: the serve command's wiring with a cert dir that rotates the way Kubernetes
// rotates Secret volumes (an atomic ..data symlink swap), and a broken pair that must not replace
// the last good one.
import { mkdtemp, mkdir, rename, symlink, writeFile, rm } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServing as startServer } from '../../src/server/start.ts';
import { serveConfig } from '../../src/config.ts';
import { generateSelfSigned } from '../../src/server/certificates.ts';

async function writeVersion(dir: string, name: string, files: Record<string, string>) {
  const version = join(dir, name);
  await mkdir(version);
  for (const [file, text] of Object.entries(files)) await writeFile(join(version, file), text);
  // Kubernetes' AtomicWriter: point a fresh symlink at the new version, then rename it over ..data.
  await symlink(name, join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data'));
}

function servedFingerprint(port: number, ca: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', servername: 'localhost', ca, ALPNProtocols: ['http/1.1'] }, () => {
      const fp = socket.getPeerX509Certificate()!.fingerprint256;
      expect(socket.alpnProtocol).toBe('http/1.1');
      socket.end();
      resolve(fp);
    });
    socket.on('error', reject);
  });
}

const until = async (check: () => Promise<boolean>, ms = 8000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
};

describe('serving certificate rotation', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanup) await c();
  });

  it('reloads a Secret-style symlink swap without restart and keeps the last good pair when a new one is broken', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kiw-tls-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const first = await generateSelfSigned();
    await writeVersion(dir, '..v1', { 'tls.crt': first.certPem, 'tls.key': first.keyPem });
    await symlink('..data/tls.crt', join(dir, 'tls.crt'));
    await symlink('..data/tls.key', join(dir, 'tls.key'));

    const server = await startServer({ ...serveConfig(['--cert-dir', dir, '--port', '0', '--host', '127.0.0.1', '--log-level', 'silent']) });
    cleanup.push(server.close);
    const fp1 = new X509Certificate(first.certPem).fingerprint256;
    expect(await servedFingerprint(server.port, [first.caPem])).toBe(fp1);

    const second = await generateSelfSigned();
    await writeVersion(dir, '..v2', { 'tls.crt': second.certPem, 'tls.key': second.keyPem });
    const fp2 = new X509Certificate(second.certPem).fingerprint256;
    expect(await until(async () => (await servedFingerprint(server.port, [first.caPem, second.caPem])) === fp2)).toBe(true);

    // A broken pair (key of another certificate) is refused; the second pair keeps serving.
    await writeVersion(dir, '..v3', { 'tls.crt': first.certPem, 'tls.key': second.keyPem });
    await new Promise((r) => setTimeout(r, 1000));
    expect(await servedFingerprint(server.port, [first.caPem, second.caPem])).toBe(fp2);
    const metrics = await server.app.inject('/metrics');
    expect(metrics.body).toMatch(/karmada_interpreter_certificate_reloads_total\{result="success"\} 1/);
    expect(metrics.body).toMatch(/karmada_interpreter_certificate_reloads_total\{result="error"\} 1/);
  });
});
