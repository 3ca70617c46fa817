// `replay --url` against a server that runs with `--record` must not record the replayed traffic again
// (issue 22): the real server over HTTPS, fixtures replayed into it, then nothing new on disk.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveConfig } from '../../src/config.ts';
import { WebhookClient } from '../../src/protocol/karmada-client.ts';
import { listExchangeFiles, readExchange } from '../../src/record/format.ts';
import { replayFiles, urlTarget } from '../../src/record/replay.ts';
import { generateSelfSigned } from '../../src/server/certificates.ts';
import { startServing } from '../../src/server/start.ts';

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('replay --url into a recording server', () => {
  it('is answered but not recorded; live traffic still is', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'replay-into-record-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const certs = await generateSelfSigned();
    await writeFile(join(dir, 'tls.crt'), certs.certPem);
    await writeFile(join(dir, 'tls.key'), certs.keyPem);
    const records = join(dir, 'records');
    const server = await startServing(serveConfig(['--cert-dir', dir, '--port', '0', '--host', '127.0.0.1', '--log-level', 'silent', '--record', records], {}));
    let open = true;
    cleanup.push(() => open && server.close());
    const url = `https://localhost:${server.port}/interpret`;
    const fixtures = (await listExchangeFiles(['test/fixtures/apps.kruise.io/CloneSet'])).slice(0, 3);

    const replayTarget = urlTarget(url, { ca: certs.caPem });
    cleanup.push(() => replayTarget.close());
    expect(await replayFiles(fixtures, replayTarget)).toMatchObject({ unchanged: fixtures.length, changed: 0, errors: 0 });

    // One live call, as Karmada makes it, to show the recorder is on.
    const client = new WebhookClient(url, { ca: certs.caPem, timeoutSeconds: 10 });
    const { request } = await readExchange(fixtures[0]!);
    await client.post(JSON.stringify({ ...request, request: { ...request.request, uid: 'live-call' } }));
    client.close();
    await server.close(); // writes out the queue
    open = false;

    const recorded = await listExchangeFiles([records]);
    expect(await Promise.all(recorded.map(async (file) => (await readExchange(file)).request.request!.uid))).toEqual(['live-call']);
  });
});
