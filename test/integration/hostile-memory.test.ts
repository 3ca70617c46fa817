// Memory that fits the pod (issue 33, item 6), against the real server process run with the Deployment's
// own flags: Lua calls each just within the per-call limit, on every worker at once and for seconds, keep the
// server's resident memory under the Deployment's memory limit (decision 0017). Before the sizing, two
// workers at a 40 MiB limit reached 603 MB, over the manifests' 512Mi then.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { send, spawnServer, type SpawnedServer } from '../support/spawned-server.ts';
import { attackRequest, beside, health, interpret, sleep } from './attack-harness.ts';

const MiB = 1024 * 1024;
const container = parse(readFileSync(new URL('../../manifests/deployment.yaml', import.meta.url), 'utf8')).spec.template.spec.containers[0];
/** The Deployment's flags that size memory, as it passes them. */
const SIZING_FLAGS: string[] = container.args.filter((arg: string) => /^--(lua-workers|lua-memory-limit|max-connections|inflight-body-limit)=/.test(arg));
const MEMORY_LIMIT = Number(/^(\d+)Mi$/.exec(container.resources.limits.memory)![1]) * MiB;
const WORKERS = Number(/--lua-workers=(\d+)/.exec(SIZING_FLAGS.join(' '))![1]);
const CALL_LIMIT_MIB = Number(/--lua-memory-limit=(\d+)MiB/.exec(SIZING_FLAGS.join(' '))![1]);

describe('memory within the pod', () => {
  let server: SpawnedServer;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kiw-memory-'));
    // Strings of 100 KB up to about 60% of the per-call limit, then a small answer: each call is
    // within its limit and leaves all of it behind as garbage.
    const strings = Math.floor((CALL_LIMIT_MIB * 0.6 * MiB) / 100_000);
    await writeFile(
      join(dir, 'hog.yaml'),
      health('MemoryHog', `local t = {}\nfor i = 1, ${strings} do t[i] = string.format("%100000d", i) end\nreturn #t == ${strings}`),
    );
    server = await spawnServer(['--customizations', dir, '--lua-timeout', '5s', ...SIZING_FLAGS]);
    for (let i = 0; i < 100 && (await send(server, { path: '/readyz' })).status !== 200; i++) await sleep(50);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("calls at the per-call limit on every worker for 6 s stay under the Deployment's memory limit", async () => {
    expect(SIZING_FLAGS.length).toBeGreaterThanOrEqual(3);
    const agent = new Agent({ keepAlive: true, maxSockets: WORKERS });
    const answers = await beside(
      server,
      async () => {
        const until = performance.now() + 6000;
        const results: string[] = [];
        await Promise.all(
          Array.from({ length: WORKERS }, async (_, caller) => {
            for (let n = 0; performance.now() < until; n++) {
              const { context } = await interpret(server, attackRequest('MemoryHog', `hog-${caller}-${n}`), agent);
              results.push(context.response!.healthy === true ? 'healthy' : (context.response!.status?.message ?? JSON.stringify(context.response)));
            }
          }),
        );
        return results;
      },
      { rssLimit: MEMORY_LIMIT },
    );
    agent.destroy();
    // Every call was within its limit and answered; how many fit in 6 s depends on the machine.
    expect(answers.length).toBeGreaterThanOrEqual(WORKERS);
    expect(answers.filter((answer) => answer !== 'healthy')).toEqual([]);
  }, 60_000);
});
