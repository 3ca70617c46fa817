// Re-records the responses of test/fixtures/**.json with the current build (deliberately: review
// the diff before committing). Run with `npm run fixtures:update`.
import { writeFile } from 'node:fs/promises';
import { pino } from 'pino';
import { createRegistry } from '../src/interpreter/setup.js';
import { listExchangeFiles, readExchange } from '../src/record/format.js';
import { buildApp } from '../src/server/app.js';

const paths = process.argv.slice(2);
const loaded = await createRegistry();
const app = buildApp({ registry: loaded.registry, logger: pino({ level: 'silent' }) });
let changed = 0;
const files = await listExchangeFiles(paths.length > 0 ? paths : ['test/fixtures']);
for (const file of files) {
  const exchange = await readExchange(file);
  const reply = await app.inject({ method: 'POST', url: '/interpret?timeout=10s', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(exchange.request) });
  const response = JSON.parse(reply.body);
  if (JSON.stringify(response) !== JSON.stringify(exchange.response)) {
    changed += 1;
    await writeFile(file, JSON.stringify({ request: exchange.request, response }, null, 2) + '\n');
    console.log(`updated ${file}`);
  }
}
console.log(`${files.length} fixtures, ${changed} updated`);
await app.close();
loaded.close();
