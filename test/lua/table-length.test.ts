// `#t` is gopher-lua's LTable.Len (table.go): the largest positive integer key below MaxArrayIndex (2^26)
// holding a non-nil value. src/lua/engine/gopher-tables.ts computes it incrementally (a cache per table,
// updated from appended entries and a downward search after deletions); these tests drive random writes,
// deletions, appends, pops and table.insert/remove, and compare every `#t` with a full scan done in Lua.
import { afterAll, describe, expect, it } from 'vitest';
import { LuaRuntime } from '../../src/lua/runtime.ts';
import { reflectScript, workload } from './helpers.ts';

const rt = new LuaRuntime();
afterAll(() => rt.close());

function randomOperations(seed: number, count: number): string {
  let state = seed;
  const random = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * n);
  };
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    switch (random(10)) {
      case 0:
        lines.push(`t[${1 + random(40)}] = ${i}`);
        break;
      case 1:
        lines.push(`t[${1 + random(40)}] = nil`);
        break;
      case 2:
        lines.push(`t[#t + 1] = ${i}`);
        break;
      case 3:
        lines.push('t[#t] = nil');
        break;
      case 4:
        lines.push(`table.insert(t, ${i})`);
        break;
      case 5:
        lines.push('table.remove(t)');
        break;
      case 6:
        lines.push(`t["k${random(5)}"] = ${random(2) === 0 ? 'nil' : i}`);
        break;
      case 7:
        lines.push(`table.insert(t, ${1 + random(10)}, ${i})`);
        break;
      case 8:
        lines.push(`t[${random(3) - 1} + 0.5 * ${random(2)}] = ${random(2) === 0 ? 'nil' : i}`);
        break;
      default:
        lines.push(`table.remove(t, ${1 + random(10)})`);
    }
    lines.push('check()');
  }
  return lines.join('\n');
}

describe('# as gopher-lua LTable.Len', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('matches a full scan after every operation (seed %i)', async (seed) => {
    const out = await rt.call(
      'InterpretStatus',
      reflectScript(`
      local t = {}
      local checks, bad = 0, nil
      local function check()
        local max = 0
        for k in pairs(t) do
          if type(k) == "number" and k == math.floor(k) and k >= 1 and k < 2^26 and k > max then max = k end
        end
        checks = checks + 1
        if #t ~= max and bad == nil then bad = "check " .. checks .. ": #t = " .. #t .. ", largest key " .. max end
      end
      ${randomOperations(seed, 400)}
      return { checks = checks, bad = bad or "none" }`),
      [workload()],
    );
    expect(out).toEqual({ checks: 400, bad: 'none' });
  });

  it('is the largest key of an input array and of a table built past a hole', async () => {
    const out = await rt.call(
      'InterpretStatus',
      reflectScript(`
      local containers = observedObj.spec.template.spec.containers
      local t = {}
      for i = 1, 5 do t[i] = i end
      t[3] = nil
      local u = {}
      u[2] = "b"
      return { containers = #containers, t = #t, u = #u, getn = table.getn(t), maxn = table.maxn(u) }`),
      [workload()],
    );
    expect(out).toEqual({ containers: 1, t: 5, u: 2, getn: 5, maxn: 2 });
  });
});
