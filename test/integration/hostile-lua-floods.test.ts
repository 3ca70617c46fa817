// Floods of runaway Lua customizations against the real server process, with attack-harness.ts: eight
// customizations whose scripts never end, called by one or two callers each, against two worker threads.
// A customization that works must still start within one time limit (decision 0016: the priority lane),
// and the runaway ones end up answered at once by their circuit breakers. README.md ("Reliability").
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attackRequest, beside, GRACE_MS, health, interpret, LUA_TIMEOUT_MS, sleep } from './attack-harness.ts';
import { expectWellFormed } from '../reliability/envelope-check.ts';
import { send, spawnServer, type SpawnedServer } from '../support/spawned-server.ts';

const RUNAWAY = 8;
const WORKERS = 2;
/** Callers of runaway customization i: two for the even ones, one for the odd ones. */
const callersOf = (i: number) => (i % 2 === 0 ? 2 : 1);
const runawayKind = (i: number) => `Flood${i}`;

describe('floods of runaway Lua customizations against the real server', () => {
  let server: SpawnedServer;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kiw-floods-'));
    for (let i = 0; i < RUNAWAY; i++) await writeFile(join(dir, `flood-${i}.yaml`), health(runawayKind(i), 'while true do end'));
    await writeFile(join(dir, 'working.yaml'), health('Working', 'return obj.status ~= nil'));
    await writeFile(join(dir, 'newcomer.yaml'), health('Newcomer', 'return obj.status ~= nil'));
    server = await spawnServer(['--customizations', dir, '--lua-timeout', `${LUA_TIMEOUT_MS}ms`, '--lua-workers', String(WORKERS)]);
    for (let i = 0; i < 100 && (await send(server, { path: '/readyz' })).status !== 200; i++) await sleep(50);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** A call with Karmada's ?timeout=3s (2.7 s to answer); the envelope and how long it took. */
  async function within3s(kind: string, uid: string, agent: Agent) {
    const envelope = attackRequest(kind, uid);
    const started = performance.now();
    const answer = await send(server, { path: '/interpret?timeout=3s', body: JSON.stringify(envelope), agent });
    return { context: expectWellFormed(answer.status, answer.body, envelope), ms: performance.now() - started };
  }

  it('8 runaway customizations with 1–2 callers each on 2 workers: working customizations answer within one time limit, the runaways end up answered at once', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    // Karmada calls every served customization all the time: this one has answered before.
    expect((await interpret(server, attackRequest('Working', 'working-before'), agent)).context.response).toMatchObject({ successful: true });

    const answers = await beside(server, async () => {
      const answers: Array<{ key: number; message: string; ms: number }> = [];
      // Each caller calls again at once until its customization's circuit answers it without running.
      const caller = async (key: number, n: number) => {
        for (let call = 0; ; call++) {
          const { context, ms } = await interpret(server, attackRequest(runawayKind(key), `flood-${key}-${n}-${call}`), agent);
          expect(context.response).toMatchObject({ successful: false, status: { code: 500 } });
          const message = context.response!.status!.message!;
          answers.push({ key, message, ms });
          if (message.includes('circuit breaker')) return;
        }
      };
      const flood = Array.from({ length: RUNAWAY }, (_, key) => Array.from({ length: callersOf(key) }, (_, n) => caller(key, n))).flat();
      await sleep(50);
      // While the first calls of all eight run away: five calls at once of the working customization.
      const working = await Promise.all(Array.from({ length: 5 }, (_, i) => within3s('Working', `working-${i}`, agent)));
      expect(working.map(({ context, ms }) => ({ response: context.response, late: ms >= LUA_TIMEOUT_MS + GRACE_MS }))).toEqual(
        working.map(() => ({ response: expect.objectContaining({ successful: true, healthy: true }), late: false })), // not 504, and in time
      );
      // Once every runaway customization has timed out, even a customization never called before starts at once.
      while (new Set(answers.map((a) => a.key)).size < RUNAWAY) await sleep(50);
      const newcomer = await within3s('Newcomer', 'newcomer', agent);
      expect(newcomer.context.response).toMatchObject({ successful: true, healthy: true });
      expect(newcomer.ms).toBeLessThan(LUA_TIMEOUT_MS + GRACE_MS);
      await Promise.all(flood);
      return answers;
    });
    agent.destroy();

    for (let key = 0; key < RUNAWAY; key++) {
      const mine = answers.filter((a) => a.key === key);
      const name = `attack-${runawayKind(key).toLowerCase()}`;
      for (const { message } of mine) expect(message).toContain(`customization ${name}: InterpretHealth: `);
      // Stopped at the time limit until three in a row timed out; from then on answered at once, naming them.
      expect(mine.filter((a) => /time limit|timed out after/.test(a.message) && !a.message.includes('circuit breaker')).length).toBeGreaterThanOrEqual(1);
      const refused = mine.filter((a) => a.message.includes('circuit breaker'));
      expect(refused).toHaveLength(callersOf(key));
      for (const { message } of refused) {
        expect(message).toMatch(
          /not run \(circuit breaker\): its last [3-9] calls timed out, the first \d+\.\d s ago; its calls are answered at once for the next \d+ s, then one is tried/,
        );
      }
    }

    const metrics = (await send(server, { path: '/metrics' })).body;
    for (let key = 0; key < RUNAWAY; key++) {
      const name = `attack-${runawayKind(key).toLowerCase()}`;
      expect(metrics).toMatch(new RegExp(`^karmada_interpreter_lua_circuit_open\\{customization="${name}"\\} 1$`, 'm'));
      expect(
        Number(new RegExp(`^karmada_interpreter_lua_circuit_refused_total\\{customization="${name}"\\} (\\d+)$`, 'm').exec(metrics)?.[1]),
      ).toBeGreaterThanOrEqual(callersOf(key));
    }
    expect(metrics).not.toMatch(/lua_circuit_open\{customization="attack-working"\}/);
  }, 90_000);
});
