// The serving certificate rotates three times (Kubernetes' atomic ..data symlink swap, as cert-manager
// renewals arrive) while keep-alive and fresh-connection clients hammer the server: no request fails,
// fresh connections pick up each new certificate, existing connections keep working.
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServing as startServer } from '../../src/server/start.ts';
import { serveConfig } from '../../src/config.ts';
import { generateSelfSigned, type GeneratedCertificates } from '../../src/server/certificates.ts';
import { expectWellFormed } from '../reliability/envelope-check.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const REQUEST = readFileSync(join(ROOT, 'examples/requests/cloneset-interpretreplica.json'), 'utf8');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function writeVersion(dir: string, name: string, pair: GeneratedCertificates) {
  await mkdir(join(dir, name));
  await writeFile(join(dir, name, 'tls.crt'), pair.certPem);
  await writeFile(join(dir, name, 'tls.key'), pair.keyPem);
  await symlink(name, join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data'));
}

function post(port: number, ca: string[], agent: Agent | false): Promise<{ status: number; body: string; fingerprint?: string }> {
  return new Promise((resolveAnswer, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        servername: 'localhost',
        ca,
        agent,
        method: 'POST',
        path: '/interpret?timeout=10s',
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const fingerprint = (res.socket as import('node:tls').TLSSocket).getPeerX509Certificate?.()?.fingerprint256;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolveAnswer({ status: res.statusCode ?? 0, body, fingerprint }));
      },
    );
    req.on('error', reject);
    req.end(REQUEST);
  });
}

describe('certificate rotation under load', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('fails no request while the serving certificate rotates three times', async () => {
    const pairs = await Promise.all([0, 1, 2, 3].map(() => generateSelfSigned()));
    const caBundle = pairs.map((p) => p.caPem); // as Karmada's caBundle during a CA rotation
    const dir = await mkdtemp(join(tmpdir(), 'kiw-rotate-load-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    await writeVersion(dir, '..v0', pairs[0]!);
    await symlink('..data/tls.crt', join(dir, 'tls.crt'));
    await symlink('..data/tls.key', join(dir, 'tls.key'));
    const server = await startServer(serveConfig(['--cert-dir', dir, '--port', '0', '--host', '127.0.0.1', '--log-level', 'silent']));
    cleanup.push(server.close);

    const keepAlive = new Agent({ keepAlive: true, maxSockets: 2 });
    cleanup.push(async () => keepAlive.destroy());
    let stop = false;
    const errors: string[] = [];
    const freshFingerprints: string[] = [];
    let answered = 0;
    const worker = async (agent: Agent | false) => {
      while (!stop) {
        try {
          const answer = await post(server.port, caBundle, agent);
          expectWellFormed(answer.status, answer.body, JSON.parse(REQUEST));
          if (agent === false && answer.fingerprint) freshFingerprints.push(answer.fingerprint);
          answered += 1;
        } catch (error) {
          errors.push((error as Error).message);
        }
      }
    };
    const workers = [worker(keepAlive), worker(keepAlive), worker(false), worker(false)];
    for (let i = 1; i < pairs.length; i++) {
      await sleep(700);
      await writeVersion(dir, `..v${i}`, pairs[i]!);
    }
    // Wait until fresh connections see the last certificate, then a little more load on it.
    const last = new X509Certificate(pairs.at(-1)!.certPem).fingerprint256;
    const deadline = performance.now() + 8000;
    while (freshFingerprints.at(-1) !== last && performance.now() < deadline) await sleep(50);
    await sleep(300);
    stop = true;
    await Promise.all(workers);

    expect(errors).toEqual([]);
    expect(answered).toBeGreaterThan(40);
    expect(freshFingerprints.at(-1)).toBe(last);
    // Fresh connections were served by at least three of the four certificates over the run.
    const seen = new Set(freshFingerprints);
    expect(seen.size).toBeGreaterThanOrEqual(3);
    const metrics = (await server.app.inject('/metrics')).body;
    expect(metrics).toMatch(/karmada_interpreter_certificate_reloads_total\{result="success"\} 3/);
  }, 60000);
});
