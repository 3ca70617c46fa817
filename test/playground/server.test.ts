// The playground's HTTP server refuses what does not come from its own page: a foreign Host (DNS
// rebinding), a cross-origin request, an /api call without the per-start token; bodies are bounded.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { SampleLibrary } from '../../src/playground/cases.ts';
import type { PlaygroundEngine, RunRequest } from '../../src/playground/engine.ts';
import { buildPlaygroundApp, TOKEN_HEADER } from '../../src/playground/server.ts';

const PORT = 18123;
const HOST = `127.0.0.1:${PORT}`;
const runs: RunRequest[] = [];
// The engine is exercised in engine.test.ts; here only what reaches it matters.
const engine = {
  hasKarmada: false,
  run: async (request: RunRequest) => (runs.push(request), { apiVersion: 'v1', kind: 'X', inputErrors: {}, operations: [] }),
} as unknown as PlaygroundEngine;
const assetsDir = await mkdtemp(join(tmpdir(), 'playground-assets-'));
await writeFile(join(assetsDir, 'main.js'), 'console.log("page");\n'.repeat(100));
const playground = buildPlaygroundApp({ engine, samples: new SampleLibrary(), kinds: [], assetsDir, token: 'secret-token', bodyLimit: 4096 });
playground.allowHosts(PORT);
const app = playground.app;
afterAll(async () => {
  await app.close();
  await rm(assetsDir, { recursive: true, force: true });
});

const post = (headers: Record<string, string>, body: unknown = { template: 'kind: X' }) =>
  app.inject({ method: 'POST', url: '/api/run', headers: { host: HOST, 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });

describe('playground server', () => {
  it('serves the page with its token, a strict content security policy and no framing', async () => {
    const page = await app.inject({ method: 'GET', url: '/', headers: { host: HOST } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<meta name="playground-token" content="secret-token">');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('answers the page itself: its Host, its Origin and its token', async () => {
    const answer = await post({ origin: `http://${HOST}`, [TOKEN_HEADER]: 'secret-token', 'sec-fetch-site': 'same-origin' });
    expect(answer.statusCode).toBe(200);
    expect(runs.at(-1)).toMatchObject({ template: 'kind: X', replicas: 1 });
    for (const host of [`localhost:${PORT}`, `[::1]:${PORT}`]) {
      expect((await app.inject({ method: 'GET', url: '/', headers: { host } })).statusCode).toBe(200);
    }
  });

  it('refuses a foreign Host, as a DNS-rebound name sends it', async () => {
    for (const host of [`evil.example:${PORT}`, '127.0.0.1:9999', '127.0.0.1', '']) {
      const page = await app.inject({ method: 'GET', url: '/', headers: { host } });
      expect(page.statusCode, host).toBe(403);
      expect(page.body).not.toContain('secret-token');
    }
    expect((await post({ host: `evil.example:${PORT}`, [TOKEN_HEADER]: 'secret-token' })).statusCode).toBe(403);
  });

  it('refuses a cross-origin post, even one that guessed the token', async () => {
    const before = runs.length;
    for (const origin of ['http://evil.example', `https://${HOST}`, 'null', `http://${HOST}.evil.example`]) {
      expect((await post({ origin, [TOKEN_HEADER]: 'secret-token' })).statusCode, origin).toBe(403);
    }
    expect((await post({ 'sec-fetch-site': 'cross-site', [TOKEN_HEADER]: 'secret-token' })).statusCode).toBe(403);
    expect(runs.length).toBe(before);
  });

  it('refuses an /api call without the token or with another', async () => {
    expect((await post({})).statusCode).toBe(403);
    expect((await post({ [TOKEN_HEADER]: 'secret-tokeX' })).statusCode).toBe(403);
    expect((await post({ [TOKEN_HEADER]: 'secret' })).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/api/kinds', headers: { host: HOST } })).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/api/kinds', headers: { host: HOST, [TOKEN_HEADER]: 'secret-token' } })).statusCode).toBe(200);
  });

  it('bounds bodies', async () => {
    const answer = await post({ [TOKEN_HEADER]: 'secret-token' }, { template: 'x'.repeat(5000) });
    expect(answer.statusCode).toBe(413);
    expect((await post({ [TOKEN_HEADER]: 'secret-token' }, [1, 2])).statusCode).toBe(400);
  });

  it('serves the built assets, gzipped when asked, and nothing else from their folder', async () => {
    const plain = await app.inject({ method: 'GET', url: '/assets/main.js', headers: { host: HOST } });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toContain('text/javascript');
    const zipped = await app.inject({ method: 'GET', url: '/assets/main.js', headers: { host: HOST, 'accept-encoding': 'gzip, br' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(plain.body);
    expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length);
    expect((await app.inject({ method: 'GET', url: '/assets/main.css', headers: { host: HOST } })).json().error).toMatch(/npm run build/);
    expect((await app.inject({ method: 'GET', url: '/assets/..%2Fpasswd', headers: { host: HOST } })).statusCode).toBe(404);
  });
});
