// The harness of the hostile-input suites: an attack runs against the real server process while ordinary
// traffic (probe.ts, its own process) runs beside it; `beside` checks the bounds every attack must keep:
// the probes under 300 ms, the server's memory under 1 GB, and /healthz answering afterwards.
// README.md ("Reliability") lists the attack classes and what each gets.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { Agent } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { InterpreterContext } from '../../src/protocol/wire.ts';
import { expectWellFormed } from '../reliability/envelope-check.ts';
import { send, type SpawnedServer } from '../support/spawned-server.ts';

export const LUA_TIMEOUT_MS = 1000;
export const GRACE_MS = 600;
export const PROBE_LIMIT_MS = 300;
export const RSS_LIMIT = 1024 * 1024 * 1024;
export const example = (name: string) => JSON.parse(readFileSync(new URL(`../../examples/requests/${name}.json`, import.meta.url), 'utf8'));
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A customization for kind `kind` whose `field` runs `body` inside its Lua function. */
export function customization(kind: string, field: string, functionName: string, params: string, body: string): string {
  return `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: attack-${kind.toLowerCase()}
spec:
  target:
    apiVersion: attack.example.io/v1
    kind: ${kind}
  customizations:
    ${field}:
      luaScript: |
        function ${functionName}(${params})
${body
  .split('\n')
  .map((line) => `          ${line}`)
  .join('\n')}
        end
`;
}
export const health = (kind: string, body: string) => customization(kind, 'healthInterpretation', 'InterpretHealth', 'obj', body);

export function attackRequest(kind: string, uid: string, operation = 'InterpretHealth') {
  const object = { apiVersion: 'attack.example.io/v1', kind, metadata: { name: 'a', namespace: 'default' }, spec: {}, status: { ready: true } };
  return {
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterContext',
    request: { uid, kind: { group: 'attack.example.io', version: 'v1', kind }, name: 'a', namespace: 'default', operation, object },
  };
}

export function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

interface Watch {
  stop(): Promise<{ slowestProbeMs: number; probes: number; failedProbes: string[]; peakRss: number }>;
}

/** Ordinary traffic beside an attack (probe.ts, its own process) and the server's resident memory. */
async function watch(server: SpawnedServer, caFile: string): Promise<Watch> {
  const child = fork(fileURLToPath(new URL('./probe.ts', import.meta.url)), [String(server.port), caFile], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise((resolve) => child.once('message', resolve));
  let peakRss = 0;
  const sampler = setInterval(() => {
    try {
      peakRss = Math.max(peakRss, rssBytes(server.child.pid!));
    } catch {
      // the process is gone; the probes report it
    }
  }, 25);
  return {
    async stop() {
      const seen = new Promise<{ slowestProbeMs: number; probes: number; failedProbes: string[] }>((resolve) =>
        child.once('message', resolve as (m: unknown) => void),
      );
      child.send('stop');
      const result = await seen;
      clearInterval(sampler);
      return { ...result, peakRss };
    },
  };
}

/** Runs `attack` beside ordinary traffic and checks the bounds every attack must keep (`rssLimit`: a tighter memory bound). */
export async function beside<T>(server: SpawnedServer, attack: () => Promise<T>, options: { rssLimit?: number } = {}): Promise<T> {
  const caFile = join(server.certDir, 'ca.crt');
  await writeFile(caFile, server.ca);
  const watching = await watch(server, caFile);
  await sleep(100);
  let result: T;
  try {
    result = await attack();
    await sleep(100);
  } finally {
    const seen = await watching.stop();
    expect(seen.failedProbes).toEqual([]);
    expect(seen.probes).toBeGreaterThan(2);
    expect(seen.slowestProbeMs).toBeLessThan(PROBE_LIMIT_MS);
    expect(seen.peakRss).toBeLessThan(options.rssLimit ?? RSS_LIMIT);
  }
  expect((await send(server, { path: '/healthz' })).status).toBe(200);
  return result!;
}

/** Sends an interpreter request; the envelope and how long it took. */
export async function interpret(server: SpawnedServer, envelope: unknown, agent?: Agent): Promise<{ context: InterpreterContext; ms: number; bytes: number }> {
  const started = performance.now();
  const answer = await send(server, { path: '/interpret?timeout=30s', body: JSON.stringify(envelope), agent });
  return { context: expectWellFormed(answer.status, answer.body, envelope), ms: performance.now() - started, bytes: answer.body.length };
}
