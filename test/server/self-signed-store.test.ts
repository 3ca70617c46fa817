// The self-signed default kept between starts: generated once into a private directory, reused while
// it is sound, regenerated when it is not, one set per SAN set, one generation when servers start at
// once, and `serve` itself serving the same certificate after a restart.
import { X509Certificate } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServing as startServer } from '../../src/server/start.ts';
import { serveConfig } from '../../src/config.ts';
import { generateSelfSigned } from '../../src/server/certificates.ts';
import { defaultSelfSignedDirs, selfSignedFiles, setDirectory, storedSetIsGood } from '../../src/server/self-signed-store.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
async function freshBase(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kiw-self-signed-'));
  dirs.push(dir);
  return join(dir, 'store'); // not created yet, as on a first start
}
const read = (file: string) => readFile(file, 'utf8');
const DAY = 86_400_000;

describe('self-signed certificate store', () => {
  it('generates a private set on the first start and serves the same one on the next', async () => {
    const base = await freshBase();
    const first = await selfSignedFiles([], base);
    expect(first).toMatchObject({ dir: base, caFile: join(base, 'ca.crt'), reused: false });
    expect((await stat(base)).mode & 0o777).toBe(0o700);
    expect((await stat(first.keyFile)).mode & 0o777).toBe(0o600);
    const leaf = new X509Certificate(await read(first.certFile));
    const ca = new X509Certificate(await read(first.caFile));
    expect(leaf.checkIssued(ca) && leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');

    const caPem = await read(first.caFile);
    const again = await selfSignedFiles([], base);
    expect(again).toEqual({ ...first, reused: true });
    expect(await read(again.caFile)).toBe(caPem);
  });

  it('keeps one set per SAN set; spellings of the same names share it', async () => {
    const base = await freshBase();
    const plain = await selfSignedFiles([], base);
    expect(setDirectory(base, ['LOCALHOST', '0:0:0:0:0:0:0:1'])).toBe(base);
    const extra = await selfSignedFiles(['interpreter.karmada-system.svc', '10.0.0.7'], base);
    expect(extra.dir).not.toBe(base);
    expect(extra.dir).toBe(setDirectory(base, ['10.0.0.7', 'Interpreter.Karmada-System.svc']));
    expect(new X509Certificate(await read(extra.certFile)).subjectAltName).toContain('DNS:interpreter.karmada-system.svc');
    expect(await selfSignedFiles([], base)).toEqual({ ...plain, reused: true }); // untouched by the other set
    expect((await selfSignedFiles(['10.0.0.7', 'interpreter.karmada-system.svc'], base)).reused).toBe(true);
  });

  it('renews a set within 30 days of expiry', async () => {
    const base = await freshBase();
    const first = await selfSignedFiles([], base);
    const validTo = new Date(new X509Certificate(await read(first.certFile)).validTo).getTime();
    expect(await storedSetIsGood(first, [], new Date(validTo - 31 * DAY))).toBe(true);
    expect(await storedSetIsGood(first, [], new Date(validTo - 29 * DAY))).toBe(false);
    const caPem = await read(first.caFile);
    const renewed = await selfSignedFiles([], base, new Date(validTo - 29 * DAY));
    expect(renewed.reused).toBe(false);
    expect(await read(renewed.caFile)).not.toBe(caPem);
  });

  it.each([
    ['a key that does not belong to the certificate', async (files: { keyFile: string }) => writeFile(files.keyFile, (await generateSelfSigned()).keyPem)],
    ['a certificate from another CA', async (files: { certFile: string }) => writeFile(files.certFile, (await generateSelfSigned()).certPem)],
    ['a damaged CA file', (files: { caFile: string }) => writeFile(files.caFile, '-----BEGIN CERTIFICATE-----\nbroken\n')],
    ['a missing key', (files: { keyFile: string }) => rm(files.keyFile)],
  ])('replaces a set with %s', async (_what, damage) => {
    const base = await freshBase();
    const first = await selfSignedFiles([], base);
    await damage(first);
    const replaced = await selfSignedFiles([], base);
    expect(replaced.reused).toBe(false);
    expect(await storedSetIsGood(replaced, [])).toBe(true);
  });

  it('servers starting at once each serve a whole set, and all of them the one left on disk', async () => {
    const base = await freshBase();
    const results = await Promise.all([1, 2, 3, 4].map(() => selfSignedFiles([], base)));
    // Without a lock several may generate; what each serves is the set its files hold afterwards.
    for (const result of results) expect(await storedSetIsGood(result, [])).toBe(true);
    expect(new Set(results.map((r) => r.caFile)).size).toBe(1);
    expect((await selfSignedFiles([], base)).reused).toBe(true);
  });

  it('refuses a directory other users can read, naming the flag', async () => {
    const base = await freshBase();
    await mkdir(base, { recursive: true });
    await chmod(base, 0o755);
    await expect(selfSignedFiles([], base)).rejects.toThrow(/--self-signed-dir .*open to other users/);
  });

  it('looks in the user cache first, then in a per-user temp directory', () => {
    const [cache, temp] = defaultSelfSignedDirs({ XDG_CACHE_HOME: '/var/cache/me' });
    expect(cache).toBe('/var/cache/me/karmada-interpreter-webhook');
    expect(temp).toBe(join(tmpdir(), `karmada-interpreter-webhook-${process.getuid!()}`));
  });
});

function servedCertificate(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', servername: 'localhost', ca }, () => {
      resolve(socket.getPeerX509Certificate()!.fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

describe('serve with the self-signed default', () => {
  it('serves the same certificate, trusted by the same CA file, after a restart', async () => {
    const base = await freshBase();
    const args = ['--self-signed-dir', base, '--port', '0', '--host', '127.0.0.1', '--log-level', 'silent'];
    const first = await startServer(serveConfig(args, {}));
    const ca = await read(join(base, 'ca.crt'));
    const before = await servedCertificate(first.port, ca);
    await first.close();
    const second = await startServer(serveConfig(args, {}));
    try {
      expect(await servedCertificate(second.port, await read(join(base, 'ca.crt')))).toBe(before);
    } finally {
      await second.close();
    }
  });
});
