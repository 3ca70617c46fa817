// `serve --record` end to end: flags and environment, then the real server over HTTPS recording
// what Karmada's client sends, and replay --url / in process agreeing with it.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServing as startServer } from '../../src/server/start.ts';
import { ConfigError, serveConfig } from '../../src/config.ts';
import { createRegistry } from '../../src/interpreter/setup.ts';
import { WebhookClient } from '../../src/protocol/karmada-client.ts';
import { listExchangeFiles, readExchange } from '../../src/record/format.ts';
import { inProcessTarget, replayFiles, urlTarget } from '../../src/record/replay.ts';
import { generateSelfSigned } from '../../src/server/certificates.ts';
import { startLocalServer } from '../../src/server/local.ts';

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('record options', () => {
  it('are off by default', () => {
    expect(serveConfig([], {})).toMatchObject({ record: undefined, recordMaxFiles: 10000, recordKeepSecrets: false });
  });

  it('come from flags or the environment, a flag beating its variable', () => {
    const env = { KARMADA_INTERPRETER_RECORD: '/env-records', KARMADA_INTERPRETER_RECORD_MAX_FILES: '50', KARMADA_INTERPRETER_RECORD_KEEP_SECRETS: 'true' };
    expect(serveConfig([], env)).toMatchObject({ record: '/env-records', recordMaxFiles: 50, recordKeepSecrets: true });
    expect(serveConfig(['--record', '/flag-records', '--record-max-files', '7'], env)).toMatchObject({ record: '/flag-records', recordMaxFiles: 7 });
    expect(serveConfig(['--record-keep-secrets'], {})).toMatchObject({ recordKeepSecrets: true });
  });

  it.each([
    [['--record-max-files', '0'], /record-max-files/],
    [['--record-max-files', 'many'], /record-max-files/],
  ])('rejects %j', (args, message) => {
    expect(() => serveConfig(args, {})).toThrow(ConfigError);
    expect(() => serveConfig(args, {})).toThrow(message);
  });

  it('rejects a variable that is not a boolean', () => {
    expect(() => serveConfig([], { KARMADA_INTERPRETER_RECORD_KEEP_SECRETS: 'maybe' })).toThrow(/record-keep-secrets/);
  });
});

describe('serve --record', () => {
  it('records what the server answers over HTTPS, and both replay modes find nothing changed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'serve-record-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const certs = await generateSelfSigned();
    await writeFile(join(dir, 'tls.crt'), certs.certPem);
    await writeFile(join(dir, 'tls.key'), certs.keyPem);
    const records = join(dir, 'records');
    const server = await startServer(serveConfig(['--cert-dir', dir, '--port', '0', '--host', '127.0.0.1', '--log-level', 'silent', '--record', records]));
    cleanup.push(server.close);
    const url = `https://localhost:${server.port}/interpret`;

    const fixtures = (await listExchangeFiles(['test/fixtures/apps.kruise.io/CloneSet'])).slice(0, 4);
    const client = new WebhookClient(url, { ca: certs.caPem, timeoutSeconds: 10 });
    const answers = new Map<string, unknown>();
    try {
      for (const file of fixtures) {
        const { request } = await readExchange(file);
        const { text } = await client.post(JSON.stringify(request));
        answers.set(request.request!.uid, JSON.parse(text));
      }
    } finally {
      client.close();
    }
    // The metric exists and nothing failed; then close, which writes out the queue.
    const metrics = await fetchText(url.replace('/interpret', '/metrics'), certs.caPem);
    expect(metrics).toMatch(/karmada_interpreter_record_failures_total\{reason="write"\} 0/);
    await server.close();
    cleanup.pop();

    const recorded = await listExchangeFiles([records]);
    expect(recorded).toHaveLength(fixtures.length);
    for (const file of recorded) {
      const exchange = await readExchange(file);
      expect(exchange.response).toEqual(answers.get(exchange.request.request!.uid));
      expect(file.startsWith(join(records, 'apps.kruise.io_v1alpha1_CloneSet', exchange.request.request!.operation))).toBe(true);
    }

    const loaded = await createRegistry();
    cleanup.push(() => loaded.close());
    expect(await replayFiles(recorded, inProcessTarget(loaded.registry))).toMatchObject({ unchanged: fixtures.length, changed: 0, errors: 0 });
    const other = await startLocalServer(loaded.registry);
    cleanup.push(() => other.close());
    const remote = urlTarget(other.url, { ca: other.ca });
    cleanup.push(() => remote.close());
    expect(await replayFiles(recorded, remote)).toMatchObject({ unchanged: fixtures.length, changed: 0, errors: 0 });
    expect(await readFile(recorded[0]!, 'utf8')).toMatch(/"serverVersion": "\d+\.\d+\.\d+/);
  });
});

async function fetchText(url: string, ca: string): Promise<string> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    request(url, { ca }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(body));
    })
      .on('error', reject)
      .end();
  });
}
