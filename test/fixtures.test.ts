// Replays every recorded exchange under test/fixtures/ against the app: the regression net for the
// wire format. A changed answer fails here; re-record deliberately with `npm run fixtures:update`.
import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createRegistry } from '../src/interpreter/setup.js';
import { listExchangeFiles, readExchange } from '../src/record/format.js';
import { buildApp } from '../src/server/app.js';

const loaded = await createRegistry();
const app = buildApp({ registry: loaded.registry, logger: pino({ level: 'silent' }) });
const files = await listExchangeFiles(['test/fixtures']);
afterAll(async () => {
  await app.close();
  loaded.close();
});

describe('recorded exchanges replay unchanged', () => {
  it('has fixtures to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });
  it.each(files)('%s', async (file) => {
    const exchange = await readExchange(file);
    expect(exchange.response, `${file} has no recorded response: run npm run fixtures:update`).not.toBeNull();
    const reply = await app.inject({ method: 'POST', url: '/interpret?timeout=10s', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(exchange.request) });
    expect(reply.statusCode).toBe(200);
    expect(JSON.parse(reply.body)).toEqual(exchange.response);
  });
});
