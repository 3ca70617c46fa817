// Lua customizations on the worker pool: answers as in-process, and every way a script can run away
// (loops where the count hook cannot fire, native functions, memory the heap limit does not count,
// huge results) ends in an error naming the limit, while the pool goes on serving.
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { MAX_DEPENDENCIES, MAX_DEPENDENCY_BYTES } from '../../src/interpreter/answer-limits.ts';
import { MAX_RESULT_BYTES } from '../../src/isolation/protocol.ts';
import { UntrustedWork } from '../../src/isolation/untrusted-work.ts';
import type { StopReason } from '../../src/isolation/worker-pool.ts';
import { LuaScriptError } from '../../src/lua/errors.ts';
import { diff, MAX_PATCH_BYTES } from '../../src/protocol/patch.ts';
import { workload } from '../lua/helpers.ts';

/** The longest message the main thread receives from a worker while `run` runs. */
async function longestMessage(run: () => Promise<unknown>): Promise<number> {
  let longest = 0;
  const original = Worker.prototype.emit;
  const emit = vi.spyOn(Worker.prototype, 'emit').mockImplementation(function (this: Worker, event: string | symbol, ...args: unknown[]) {
    if (event === 'message' && typeof args[0] === 'string') longest = Math.max(longest, args[0].length);
    return original.call(this, event, ...args);
  });
  try {
    await run();
  } finally {
    emit.mockRestore();
  }
  return longest;
}

const health = (body: string) => `function InterpretHealth(obj)\n${body}\nend`;
const HEALTHY = health('return obj.status.readyReplicas == obj.spec.replicas');

async function failure(call: Promise<unknown>): Promise<LuaScriptError> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(LuaScriptError);
    return error as LuaScriptError;
  }
  throw new Error('the call succeeded');
}

describe('untrusted work on worker threads', () => {
  const stops: Array<[StopReason, string]> = [];
  const work = new UntrustedWork({ workers: 2, luaTimeoutMs: 300, memoryLimitBytes: 64 * 1024 * 1024, onStop: (reason, key) => stops.push([reason, key]) });
  afterAll(() => work.close());
  const ready = workload({ spec: { replicas: 2 }, status: { readyReplicas: 2 } });

  it('answers as the in-process runtime does, with print lines and keys named __proto__', async () => {
    const printed: string[] = [];
    expect(
      await work.call('InterpretHealth', health('print("checking", obj.metadata.name) return true'), [ready], { onPrint: (line) => printed.push(line) }),
    ).toBe(true);
    expect(printed).toEqual([`checking\t${ready.metadata.name}`]);
    const object = JSON.parse('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","annotations":{"__proto__":"kept"}}}');
    const retained = await work.call('Retain', 'function Retain(desired, observed) return desired end', [object, object]);
    expect(Object.getOwnPropertyNames(retained.metadata.annotations)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(retained.metadata.annotations)).toBe(Object.prototype);
  });

  it("reads the arguments from the request's JSON text when the call hands it over, instead of serializing them again", async () => {
    const desired = workload({ spec: { replicas: 3 } });
    const observed = workload({ spec: { replicas: 5, paused: true } });
    const requestText = JSON.stringify({
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterContext',
      request: { operation: 'Retain', object: desired, observedObject: observed },
    });
    const script = 'function Retain(desired, observed) desired.spec.paused = observed.spec.paused return desired end';
    // The arguments given are not what runs: the request's fields are (operations.ts names them per operation);
    // the object given is the dispatcher's copy of the request's, which the worker's patch is applied to.
    const retained = await work.call('Retain', script, [structuredClone(desired), workload()], { requestText });
    expect(retained.spec).toEqual({ replicas: 3, paused: true });
    const items = [{ clusterName: 'a', status: { readyReplicas: 2 } }];
    const aggregate = 'function AggregateStatus(obj, items) obj.status = { n = #items, ready = items[1].status.readyReplicas } return obj end';
    const aggregateText = JSON.stringify({ request: { operation: 'AggregateStatus', object: desired, aggregatedStatus: items } });
    expect((await work.call('AggregateStatus', aggregate, [desired, undefined], { requestText: aggregateText })).status).toEqual({ n: 1, ready: 2 });
  });

  it('stops a loop at the time limit inside the worker, which keeps serving', async () => {
    const stopsBefore = stops.length;
    const error = await failure(work.call('InterpretHealth', health('while true do end'), [ready]));
    expect(error.timeout).toBe(true);
    expect(error.luaMessage).toMatch(/timed out after 300ms/);
    expect(stops.length).toBe(stopsBefore); // the worker was not replaced
    expect(await work.call('InterpretHealth', HEALTHY, [ready])).toBe(true);
  });

  it.each([
    ['an endless error handler (count hooks are off there)', 'xpcall(function() while true do end end, function(m) while true do end end)'],
    // Each runs until stopped, on any machine: no size is "big enough" here.
    [
      'native sorts with a Lua comparator, one after another',
      'local t = {} for i = 1, 100000 do t[i] = (i * 7919) % 100000 end while true do table.sort(t, function(a, b) return a > b end) end',
    ],
    // Twelve lazy repetitions over 300 characters: ~300^12 steps of the native matcher, where no hook runs.
    [
      'a backtracking pattern inside one native call',
      'local s, p = "", "" for i = 1, 300 do s = s .. "a" end for i = 1, 12 do p = p .. "a-" end return string.find(s, p .. "b") ~= nil',
    ],
  ])('terminates the worker of %s at the time limit and replaces it', async (_name, body) => {
    const error = await failure(work.call('InterpretHealth', health(body), [ready], { key: 'runaway' }));
    expect(error.timeout).toBe(true);
    expect(error.luaMessage).toMatch(/timed out after 300ms|stopped after 300 ms: time limit exceeded/);
    expect(await work.call('InterpretHealth', HEALTHY, [ready])).toBe(true);
  });

  it.each([
    [
      'tables allocated in an error handler',
      'xpcall(function() error("x") end, function(m) local t = {} local i = 0 while true do i = i + 1 t[i] = { i } end end) return true',
    ],
    [
      'one string of 512 MiB built by table.concat',
      'local s = string.format("%1048576s", "") local t = {} for i = 1, 512 do t[i] = s end return #table.concat(t) > 0',
    ],
    [
      'a result holding hundreds of references to one 1 MiB string',
      'local s = string.format("%1048576s", "") local t = {} for i = 1, 400 do t[i] = s end return t',
    ],
  ])('stops %s at the memory limit (or refuses the result) and keeps serving', async (_name, body) => {
    const script = body.endsWith('return t') ? `function ReflectStatus(obj)\n${body}\nend` : health(body);
    // A generous time limit: what must stop these is memory.
    const call = body.endsWith('return t')
      ? work.call('InterpretStatus', script, [ready], { timeoutMs: 20_000 })
      : work.call('InterpretHealth', script, [ready], { timeoutMs: 20_000 });
    const error = await failure(call);
    expect(error.luaMessage).toMatch(/memory limit|over the limit of \d+|stopped: memory limit of 64 MiB exceeded/);
    expect(await work.call('InterpretHealth', HEALTHY, [ready])).toBe(true);
  });

  it('returns results nested up to Go’s 10,000 levels and refuses deeper ones with its message, on a cold worker', async () => {
    // Karmada encodes a Lua result with encoding/json, which stops at 10,000 levels ("exceeded max depth");
    // the worker's stack must hold our recursive encoder that deep before V8's optimizer shrinks its frames.
    const fresh = new UntrustedWork({ workers: 1, luaTimeoutMs: 5_000, memoryLimitBytes: 64 * 1024 * 1024 });
    try {
      const nest = (levels: number) => `function ReflectStatus(obj)\nlocal t = { leaf = true }\nfor i = 1, ${levels} do t = { d = t } end\nreturn t\nend`;
      let depth = 0;
      for (let t = (await fresh.call('InterpretStatus', nest(9_998), [ready])) as { d?: unknown }; t.d; t = t.d as { d?: unknown }) depth++;
      expect(depth).toBe(9_998);
      expect((await failure(fresh.call('InterpretStatus', nest(10_000), [ready]))).luaMessage).toMatch(/exceeded max depth$/);
    } finally {
      await fresh.close();
    }
  });

  it('takes queued calls in turn across customizations: one flooding the pool delays another by one call at most', async () => {
    const finished: string[] = [];
    const runaway = Array.from({ length: 6 }, (_, i) =>
      work.call('InterpretHealth', health('while true do end'), [ready], { key: 'flood' }).catch(() => finished.push(`flood-${i}`)),
    );
    const other = work.call('InterpretHealth', HEALTHY, [ready], { key: 'other' }).then(() => finished.push('other'));
    await Promise.all([...runaway, other]);
    // Two workers take flood-0 and flood-1, the next two flood-2 and `other` (keys in turn), so `other`, a quick
    // call, ends before flood-3 does, which starts only after one of them (worker-pool.test.ts has the exact order).
    expect(finished.indexOf('other')).toBeLessThan(finished.indexOf('flood-3'));
  });

  it('does not run a call whose request deadline passed while it waited for a worker', async () => {
    const printed: string[] = [];
    const blockers = [1, 2].map(() => work.call('InterpretHealth', health('while true do end'), [ready], { key: 'blocker' }).catch(() => undefined));
    const late = failure(
      work.call('InterpretHealth', health('print("ran") return true'), [ready], {
        key: 'late',
        notAfter: performance.now() + 50,
        onPrint: (line) => printed.push(line),
      }),
    );
    const error = await late;
    await Promise.all(blockers);
    expect(error.abandoned).toBe(true);
    expect(error.luaMessage).toMatch(/deadline passed while the call waited for a worker/);
    expect(printed).toEqual([]);
  });

  it('answers every call in order, with its print lines, whatever the size of its arguments', async () => {
    const replicasOf = 'function GetReplicas(obj)\nreturn obj.spec.replicas, {}\nend';
    const printing = 'function GetReplicas(obj)\nprint(obj.spec.replicas)\nreturn obj.spec.replicas, {}\nend';
    const printed: string[] = [];
    for (let i = 0; i < 200; i++) {
      const obj = workload({ spec: { replicas: i } });
      // Back to back; every 7th answer has print lines, every 10th call carries 300 KB of labels.
      if (i % 10 === 9) obj.metadata.labels = { big: 'x'.repeat(300_000) };
      const script = i % 7 === 6 ? printing : replicasOf;
      const result = await work.call('InterpretReplica', script, [obj], { onPrint: (line) => printed.push(line) });
      expect(result.replicas).toBe(i);
    }
    expect(printed).toEqual(
      Array.from({ length: 200 }, (_, i) => i)
        .filter((i) => i % 7 === 6)
        .map(String),
    );
  });

  it('sends a few KiB of a 16 MiB error message, whatever the script raises', async () => {
    const huge = 'local s = string.format("%1048576s", "") local t = {} for i = 1, 16 do t[i] = s end';
    let error: LuaScriptError | undefined;
    const longest = await longestMessage(async () => {
      error = await failure(work.call('InterpretHealth', health(`${huge} error(table.concat(t))`), [ready], { timeoutMs: 20_000 }));
    });
    expect(longest).toBeLessThan(5000);
    expect(error!.luaMessage).toMatch(/^ {3072}… \(an error message of 167772\d\d bytes, cut\)$/); // with its position
    // A table raised, a long message raised by a library function.
    expect((await failure(work.call('InterpretHealth', health('error({ big = string.format("%1048576s", "") })'), [ready]))).luaMessage).toBe(
      '(error object is a table value)',
    );
    const fromLibrary = await failure(work.call('InterpretHealth', health(`${huge} assert(false, table.concat(t))`), [ready], { timeoutMs: 20_000 }));
    expect(fromLibrary.luaMessage).toMatch(/^ {3072}… \((\d+ more characters|an error message of \d+ bytes, cut)\)$/);
  });

  it('refuses a result over 4 MiB of JSON in the worker, naming the bound', async () => {
    const status = 'function ReflectStatus(obj) local s = string.format("%1048576s", "") return { a = s, b = s, c = s, d = s } end';
    const error = await failure(work.call('InterpretStatus', status, [ready]));
    expect(error.message).toMatch(new RegExp(`^ReflectStatus: the result is \\d+ bytes of JSON, over the limit of ${MAX_RESULT_BYTES}$`));
    expect(MAX_RESULT_BYTES).toBe(4 * 1024 * 1024);
  });

  it('answers an object as its patch, computed in the worker against the object as Go decoded it: untouched fields stay out', async () => {
    const requestText =
      '{"request":{"operation":"ReviseReplica","replicas":3,"object":{"apiVersion":"v1","kind":"W","metadata":{"name":"a"},' +
      '"spec":{"replicas":1,"weird":"\\ufeffabc","\\ufeffk":"v","lone":"\\ud800","\\udc00key":{"x":1}},"status":{"big":"' +
      'x'.repeat(100_000) +
      '"}}}}';
    const object = JSON.parse(requestText).request.object;
    const given = structuredClone(object);
    const before = JSON.stringify(given);
    const script = 'function ReviseReplica(obj, replicas) obj.spec.replicas = replicas return obj end';
    let revised: Record<string, any> | undefined;
    const longest = await longestMessage(async () => {
      revised = await work.call('ReviseReplica', script, [given, 3], { requestText });
    });
    expect(diff(object, revised!)).toEqual([{ op: 'replace', path: '/spec/replicas', value: 3 }]);
    expect(longest).toBeGreaterThan(40);
    expect(longest).toBeLessThan(1000); // the patch, not the 100 KB object
    expect(revised).toEqual({ ...given, spec: { ...given.spec, replicas: 3 } });
    expect(revised!.status).toBe(given.status); // what the patch does not change is shared, not copied
    expect(JSON.stringify(given)).toBe(before);
    // A script that walks and rebuilds everything gives back what Go decoded: still only replicas.
    const rebuilt = await work.call(
      'Retain',
      'local function copy(v) if type(v) ~= "table" then return v end local t = {} for k, x in pairs(v) do t[k] = copy(x) end return t end\n' +
        'function Retain(desired, observed) local out = copy(desired) out.spec.replicas = 3 return out end',
      [structuredClone(object), structuredClone(object)],
      { requestText: requestText.replace('"ReviseReplica"', '"Retain","observedObject":{"kind":"W"}') },
    );
    expect(diff(object, rebuilt)).toEqual([{ op: 'replace', path: '/spec/replicas', value: 3 }]);
  });

  it('applies the patch without touching what the object shares with the request (AggregateStatus gets a shallow copy)', async () => {
    // (No empty tables: AggregateStatus drops them, as Karmada does, which would change spec.)
    const request = {
      apiVersion: 'v1',
      kind: 'W',
      metadata: { name: 'w', labels: { a: '1' } },
      spec: { replicas: 1, template: { x: 1 } },
      status: { ready: 1 },
    };
    const before = JSON.stringify(request);
    const given = { ...request, status: structuredClone(request.status) }; // as dispatch.ts hands it over
    const script = 'function AggregateStatus(obj, items) obj.metadata.labels.b = "2" obj.status = { ready = #items } return obj end';
    const aggregated = await work.call('AggregateStatus', script, [given, [{ clusterName: 'm' }]]);
    expect(aggregated.metadata.labels).toEqual({ a: '1', b: '2' });
    expect(aggregated.status).toEqual({ ready: 1 });
    expect(JSON.stringify(request)).toBe(before);
    expect(aggregated.spec).toBe(request.spec);
  });

  it('refuses a result whose patch is past its bound, in the worker', async () => {
    const script = `function ReviseReplica(obj, replicas) local s = string.format("%1048576s", "") obj.spec.a, obj.spec.b, obj.spec.c, obj.spec.d, obj.spec.e = s, s, s, s, s return obj end`;
    let error: LuaScriptError | undefined;
    const longest = await longestMessage(async () => {
      error = await failure(work.call('ReviseReplica', script, [workload(), 1], { timeoutMs: 20_000 }));
    });
    expect(error!.message).toBe(`ReviseReplica: the result differs from the object by a patch over the limit of ${MAX_PATCH_BYTES} bytes of JSON`);
    expect(longest).toBeLessThan(5000);
  });

  it('bounds the dependencies one script returns, by count and by bytes, in the worker', async () => {
    // (A longer list is refused before its entries are looked at.) These calls take their time: no time limit of 300 ms.
    const slow = { timeoutMs: 20_000 };
    const many = `function GetDependencies(obj) local d = {} for i = 1, ${MAX_DEPENDENCIES + 1} do d[i] = i end return d end`;
    expect((await failure(work.call('InterpretDependency', many, [ready], slow))).message).toBe(
      `GetDependencies: the result has ${MAX_DEPENDENCIES + 1} dependencies, over the limit of ${MAX_DEPENDENCIES} per answer`,
    );
    const big = `function GetDependencies(obj) local n = string.format("%65536s", "") local d = {} for i = 1, 80 do d[i] = { apiVersion = "v1", kind = "ConfigMap", name = i .. n } end return d end`;
    expect((await failure(work.call('InterpretDependency', big, [ready], slow))).message).toMatch(
      new RegExp(`^GetDependencies: the result has dependencies of \\d+ bytes of JSON, over the limit of ${MAX_DEPENDENCY_BYTES} per answer$`),
    );
    const enough = `function GetDependencies(obj) local d = {} for i = 1, ${MAX_DEPENDENCIES} do d[i] = { apiVersion = "v1", kind = "ConfigMap", name = "c" .. i } end return d end`;
    expect(await work.call('InterpretDependency', enough, [ready], slow)).toHaveLength(MAX_DEPENDENCIES);
  });

  it('evaluates state-preservation JSONPath on a worker', async () => {
    const result = await work.evaluatePreservation([{ aliasLabelName: 'phase', jsonPath: '{.phase}' }], { phase: 'Running' });
    expect(result).toEqual({ labels: { phase: 'Running' }, errors: [], warnings: [] });
  });
});
