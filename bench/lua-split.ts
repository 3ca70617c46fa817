// Where a Lua call's CPU goes (`node bench/lua-split.ts`). First by thread: our server with CloneSet served
// by Lua, one keep-alive client, CPU per request of its main thread, its Lua worker threads and V8's own
// threads (garbage collection, compilation). Then step by step, in this process: what the worker does (read
// the request's JSON, run the call: lazy conversion, the script, result conversion; write the result's
// JSON), what the main thread adds (read the result), and the hand-off itself (a message to an idle worker
// thread and back, the threads sleeping between calls as they do at one client).
import { readdirSync, readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { Worker } from 'node:worker_threads';
import { parseAllDocuments } from 'yaml';
import { LuaRuntime } from '../src/lua/runtime.ts';
import { fixtureCases, largeAggregateCase } from './cases.ts';
import { ticksToMicroseconds } from './process-stats.ts';
import { post, startChildServer } from './servers.ts';

const CALLS = Number(process.env.SPLIT_CALLS ?? 3000);
const HAND_OFF_GAP_MS = 1;

const customizations = parseAllDocuments(readFileSync('bench/customizations/cloneset.yaml', 'utf8')).map((d) => d.toJSON());
const scripts = customizations.find((d) => d?.spec?.customizations?.healthInterpretation)!.spec.customizations;
const health = (await fixtureCases()).find((c) => c.target === 'apps.kruise.io CloneSet' && c.operation === 'InterpretHealth')!.body;
const aggregate = largeAggregateCase().body;
const runtime = new LuaRuntime({ poolSize: 1 });

/** CPU of this process (all threads) per call of fn, in µs, after a warm-up. */
async function cpuPerCall(fn: () => unknown): Promise<number> {
  for (let i = 0; i < 300; i++) await fn();
  const before = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / CALLS;
}

/** CPU ticks of the server's threads, summed by role (from the thread names Node gives them). */
function ticksByRole(pid: number): Map<string, number> {
  const roles = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const role =
      name === 'node-MainThread' ? 'main thread' : name === 'WorkerThread' ? 'Lua worker threads' : name.startsWith('node-V8') ? "V8's threads" : 'other';
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    roles.set(role, (roles.get(role) ?? 0) + Number(fields[11]) + Number(fields[12]));
  }
  return roles;
}

const server = await startChildServer({
  name: 'lua',
  cli: 'src/cli.ts',
  args: ['--customizations', 'bench/customizations'],
  logFile: '/tmp/lua-split-server.log',
});
const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
console.log(`| request | main thread | Lua worker threads | V8's threads | other | whole process |\n|---|---|---|---|---|---|`);
for (const [name, body] of [
  ['InterpretHealth', health],
  ['AggregateStatus, 50 clusters', aggregate],
] as const) {
  for (let i = 0; i < 300; i++) await post(server.port, '/interpret', body, agent);
  const before = ticksByRole(server.pid);
  for (let i = 0; i < CALLS; i++) await post(server.port, '/interpret', body, agent);
  const after = ticksByRole(server.pid);
  const per = (role: string) => ticksToMicroseconds((after.get(role) ?? 0) - (before.get(role) ?? 0)) / CALLS;
  const roles = ['main thread', 'Lua worker threads', "V8's threads", 'other'];
  console.log(`| ${name} | ${roles.map((r) => per(r).toFixed(0)).join(' | ')} | ${roles.reduce((sum, r) => sum + per(r), 0).toFixed(0)} |`);
}
await server.stop();
console.log(`\nµs of CPU per request over ${CALLS} requests after 300 (a tick is ${ticksToMicroseconds(1) / 1000} ms a batch).\n`);

const rows: Array<[string, string, number]> = [];
for (const [name, text, run] of [
  ['InterpretHealth (2.9 KB)', health, (r: any) => runtime.call('InterpretHealth', scripts.healthInterpretation.luaScript, [r.object])],
  [
    'AggregateStatus, 50 clusters (35 KB)',
    aggregate,
    (r: any) => runtime.call('AggregateStatus', scripts.statusAggregation.luaScript, [r.object, r.aggregatedStatus]),
  ],
] as const) {
  const request = JSON.parse(text).request;
  const result = await run(request);
  const resultText = JSON.stringify(result);
  rows.push([name, "worker: read the request's JSON", await cpuPerCall(() => JSON.parse(text))]);
  rows.push([name, 'worker: the call (conversion, script, result)', await cpuPerCall(() => run(request))]);
  rows.push([name, "worker: write the result's JSON", await cpuPerCall(() => JSON.stringify(result))]);
  rows.push([name, "main: read the result's JSON", await cpuPerCall(() => JSON.parse(resultText))]);
}
rows.push([
  'any',
  'worker: a call whose script only returns true',
  await cpuPerCall(() => runtime.call('InterpretHealth', 'function InterpretHealth(o) return true end', [{}])),
]);

// The hand-off: the real pool's shape (text both ways), to a worker thread that only answers.
const echo = new Worker("require('node:worker_threads').parentPort.on('message', function (t) { this.postMessage(t.slice(0, 8)); });", { eval: true });
const roundTrip = (text: string) =>
  new Promise<void>((resolve) => {
    echo.once('message', () => setTimeout(resolve, HAND_OFF_GAP_MS));
    echo.postMessage(text);
  });
const gap = await cpuPerCall(() => new Promise((resolve) => setTimeout(resolve, HAND_OFF_GAP_MS)));
for (const [name, text] of [
  ['InterpretHealth (2.9 KB)', health],
  ['AggregateStatus, 50 clusters (35 KB)', aggregate],
] as const) {
  rows.push([name, 'hand-off: a message to a worker thread and back, both asleep between calls', (await cpuPerCall(() => roundTrip(text))) - gap]);
}
await echo.terminate();

console.log(`| request | step | CPU µs per call |\n|---|---|---|`);
for (const [name, step, us] of rows) console.log(`| ${name} | ${step} | ${us.toFixed(1)} |`);
console.log(`\n${CALLS} calls per step after 300; the hand-off less the ${HAND_OFF_GAP_MS} ms timer between calls (${gap.toFixed(1)} µs alone).`);
