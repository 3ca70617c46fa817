// Ordinary traffic beside an attack, in its own process so that the attack's client work (building and
// encrypting large bodies) cannot delay it: a CloneSet InterpretHealth and GET /healthz every 50 ms on
// keep-alive connections. On the message "stop" it answers its slowest latency and any failure.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';

const [port, caFile] = process.argv.slice(2);
const ca = readFileSync(caFile!, 'utf8');
const envelope = JSON.parse(readFileSync(new URL('../../examples/requests/cloneset-interpretreplica.json', import.meta.url), 'utf8'));
envelope.request.operation = 'InterpretHealth';
const body = JSON.stringify(envelope);
const agent = new Agent({ keepAlive: true, maxSockets: 2 });
let stopped = false;
let slowest = 0;
let probes = 0;
const failed: string[] = [];

function call(method: string, path: string, payload?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(port),
        path,
        method,
        agent,
        ca,
        servername: 'localhost',
        headers: payload ? { 'content-type': 'application/json' } : {},
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function loop(name: string, send: () => Promise<{ status: number; text: string }>, ok: (a: { status: number; text: string }) => boolean) {
  while (!stopped) {
    const started = performance.now();
    try {
      const answer = await send();
      if (!ok(answer)) failed.push(`${name}: ${answer.status} ${answer.text.slice(0, 200)}`);
    } catch (error) {
      failed.push(`${name}: ${(error as Error).message}`);
    }
    slowest = Math.max(slowest, performance.now() - started);
    probes++;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const loops = [
  loop(
    'healthz',
    () => call('GET', '/healthz'),
    (a) => a.status === 200,
  ),
  loop(
    'cloneset',
    () => call('POST', '/interpret?timeout=10s', body),
    (a) => a.status === 200 && JSON.parse(a.text).response.successful === true,
  ),
];
process.send?.('started');
process.on('message', async () => {
  stopped = true;
  await Promise.all(loops);
  agent.destroy();
  if (process.send) process.send({ slowestProbeMs: slowest, probes, failedProbes: failed });
  process.disconnect?.();
});
