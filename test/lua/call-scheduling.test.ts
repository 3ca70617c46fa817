// When Lua calls run: at once, inside the caller's turn of the event loop (as TypeScript modules do),
// until Lua has held one loop iteration for 20 ms; later calls queue and run one per iteration, in
// arrival order, so I/O and timers are served in between.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { LuaRuntime } from '../../src/lua/runtime.ts';
import { workload } from './helpers.ts';

const printing = `function InterpretHealth(o) print(o.metadata.name) return true end`;
const runaway = `function InterpretHealth(o) while true do end end`;

describe('Lua call scheduling', () => {
  const rt = new LuaRuntime({ timeoutMs: 1000 });
  afterAll(() => rt.close());
  // Each test starts in a fresh loop iteration, with nothing queued.
  beforeEach(() => new Promise<void>((resolve) => setImmediate(resolve)));

  const named = (name: string) => workload({ metadata: { name } });

  it('runs a call at once while Lua has not held the event loop', async () => {
    const printed: string[] = [];
    const answers = [rt.interpretHealth(printing, named('a'), { onPrint: (line) => printed.push(line) }), rt.interpretHealth(printing, named('b'), { onPrint: (line) => printed.push(line) })];
    expect(printed).toEqual(['a', 'b']); // before anything was awaited
    expect(await Promise.all(answers)).toEqual([true, true]);
  });

  it('queues calls once Lua has held the loop for 20 ms, and runs them one per loop iteration in arrival order', async () => {
    let iterations = 0;
    let counting = true;
    const count = () => {
      iterations++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const seen: Array<[string, number]> = [];
    const onPrint = (line: string) => seen.push([line, iterations]);

    const spinner = rt.interpretHealth(runaway, workload(), { timeoutMs: 50 }).catch((e: unknown) => e);
    const queued = ['first', 'second', 'third'].map((name) => rt.interpretHealth(printing, named(name), { onPrint }));
    expect(seen).toEqual([]); // none ran with the spinner
    expect(await Promise.all(queued)).toEqual([true, true, true]);
    counting = false;
    await spinner;

    expect(seen.map(([name]) => name)).toEqual(['first', 'second', 'third']);
    const [one, two, three] = seen.map(([, iteration]) => iteration);
    expect(two).toBeGreaterThan(one!);
    expect(three).toBeGreaterThan(two!);

    // The queue has drained: the next call runs at once again.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const printed: string[] = [];
    const answer = rt.interpretHealth(printing, named('later'), { onPrint: (line) => printed.push(line) });
    expect(printed).toEqual(['later']);
    expect(await answer).toBe(true);
  });

  it('counts the 20 ms per loop iteration: short calls in later iterations still run at once', async () => {
    for (let i = 0; i < 30; i++) {
      const started = performance.now();
      while (performance.now() - started < 2); // 2 ms of other work in this iteration
      const printed: string[] = [];
      const answer = rt.interpretHealth(printing, named(`call-${i}`), { onPrint: (line) => printed.push(line) });
      expect(printed).toEqual([`call-${i}`]);
      await answer;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  });
});
