// The request files the README tells users to curl must keep working.
import { readdir, readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createRegistry } from '../src/interpreter/setup.ts';
import { buildApp } from '../src/server/app.ts';

const loaded = await createRegistry();
const app = buildApp({ registry: loaded.registry, logger: pino({ level: 'silent' }) });
afterAll(async () => {
  await app.close();
  loaded.close();
});
const files = (await readdir('examples/requests')).filter((f) => f.endsWith('.json'));

describe('examples/requests', () => {
  it.each(files)('%s answers successfully', async (file) => {
    const payload = await readFile(`examples/requests/${file}`, 'utf8');
    const reply = await app.inject({ method: 'POST', url: '/interpret?timeout=3s', headers: { 'content-type': 'application/json' }, payload });
    const body = JSON.parse(reply.body);
    expect(body.response.uid).toBe(JSON.parse(payload).request.uid);
    expect(body.response.successful, JSON.stringify(body.response.status)).toBe(true);
  });
});
