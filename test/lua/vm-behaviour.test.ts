// What scripts rely on in fengari's VM: closures over loop variables, open upvalues closed on return, deep
// call/return chains, varargs, `next` over a table whose keys are deleted and re-added, `for ... in ipairs`.
import { afterAll, describe, expect, it } from 'vitest';
import { LuaRuntime } from '../../src/lua/runtime.ts';
import { reflectScript } from './helpers.ts';

describe('the VM', () => {
  it('keeps next() working over keys deleted and added during the walk', async () => {
    const rt = new LuaRuntime({ poolSize: 1 });
    try {
      const out = await rt.call(
        'InterpretStatus',
        reflectScript(`
          local t = { a = 1, b = 2, c = 3, d = 4 }
          local seen = {}
          for k, v in pairs(t) do
            seen[#seen + 1] = k
            t[k] = nil                       -- deleting the current key is allowed during next()
          end
          t.e = 5; t.a = 6                   -- new keys after deletions
          local after = {}
          for k, v in pairs(t) do after[#after + 1] = k .. "=" .. v end
          table.sort(after)
          return { n = #seen, after = table.concat(after, ",") }`),
        [{ apiVersion: 'v1', kind: 'X' }],
      );
      expect(out).toEqual({ n: 4, after: 'a=6,e=5' });
    } finally {
      rt.close();
    }
  });

  it('keeps closures, upvalues, varargs and call/return results intact', async () => {
    const rt = new LuaRuntime({ poolSize: 1 });
    try {
      const out = await rt.call(
        'InterpretStatus',
        reflectScript(`
          local fns = {}
          for i = 1, 5 do fns[i] = function() return i * 10 end end
          local function counter() local n = 0 return function() n = n + 1 return n end end
          local c = counter(); c(); c()
          local function pack(...) return select('#', ...), ... end
          local function deep(n) if n == 0 then return 1, 2, 3 end return deep(n - 1) end
          local a, b, cc = deep(200)
          local count, x, y = pack(7, nil, 9)
          local sum = 0
          for _, v in ipairs({ 1, 2, 3, 4 }) do sum = sum + v end
          local t = { string.byte("abc", 1, 3) }
          return { f = fns[3](), c = c(), deep = a + b + cc, count = count, x = x, y = y, sum = sum, bytes = #t, pc = pcall(error, "e") }`),
        [{ apiVersion: 'v1', kind: 'X' }],
      );
      expect(out).toEqual({ f: 30, c: 3, deep: 6, count: 3, x: 7, sum: 10, bytes: 3, pc: false });
    } finally {
      rt.close();
    }
  });
});

describe('ipairs steps done by the VM', () => {
  const rt = new LuaRuntime({ poolSize: 1 });
  afterAll(() => rt.close());
  const reflect = (body: string, object: Record<string, unknown> = { apiVersion: 'v1', kind: 'X' }) =>
    rt.call('InterpretStatus', reflectScript(body), [object]);

  it('stops at the first nil and pads the loop variables with nils', async () => {
    const out = await reflect(`
      local t = { 10, 20, nil, 40 }
      local one, two, three = {}, {}, 0
      for i in ipairs(t) do one[#one + 1] = i end
      for i, v in ipairs(t) do two[#two + 1] = i .. "=" .. v end
      for i, v, extra in ipairs(t) do if extra ~= nil then three = three + 1 end end
      local empty = 0
      for _ in ipairs({}) do empty = empty + 1 end
      return { one = table.concat(one, ","), two = table.concat(two, ","), extras = three, empty = empty }`);
    expect(out).toEqual({ one: '1,2', two: '1=10,2=20', extras: 0, empty: 0 });
  });

  it('sees the table as it changes during the loop, like the iterator called by hand', async () => {
    const out = await reflect(`
      local grow = { 1 }
      for i, v in ipairs(grow) do if i < 5 then grow[#grow + 1] = v + i end end
      local cut = { 1, 2, 3, 4 }
      local seen = 0
      for i in ipairs(cut) do seen = seen + 1; cut[i + 1] = nil end
      local byHand = {}
      local f, s, c = ipairs({ "a", "b" })
      local i, v = f(s, c)
      while i do byHand[#byHand + 1] = i .. v; i, v = f(s, i) end
      local nested = 0
      for _, row in ipairs({ { 1, 2 }, { 3 } }) do for _, x in ipairs(row) do nested = nested + x; if x == 1 then break end end end
      return { grow = table.concat(grow, ","), seen = seen, byHand = table.concat(byHand, ","), nested = nested }`);
    expect(out).toEqual({ grow: '1,2,4,7,11', seen: 1, byHand: '1a,2b', nested: 4 });
  });

  it('iterates converted input (first step on the lazy table, then plain) and leaves other iterators alone', async () => {
    const out = await reflect(
      `
      local names, again = {}, 0
      for _, item in ipairs(observedObj.spec.items) do names[#names + 1] = item.name end
      for _ in ipairs(observedObj.spec.items) do again = again + 1 end
      local viaNext = 0
      for _ in next, { 1, 2, 3 } do viaNext = viaNext + 1 end
      local custom = 0
      for n in function(_, c) if c < 3 then return c + 1 end end, nil, 0 do custom = custom + n end
      local ok = pcall(function() for _ in ipairs(5) do end end)
      return { names = table.concat(names, ","), again = again, viaNext = viaNext, custom = custom, numberFails = not ok }`,
      { apiVersion: 'v1', kind: 'X', spec: { items: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } },
    );
    expect(out).toEqual({ names: 'a,b,c', again: 3, viaNext: 3, custom: 6, numberFails: true });
  });

  it('still counts the loop against the call deadline', async () => {
    const short = new LuaRuntime({ poolSize: 1, timeoutMs: 150 });
    try {
      const call = short.call('InterpretStatus', reflectScript('while true do for _ in ipairs({ 1, 2, 3 }) do end end'), [{ apiVersion: 'v1', kind: 'X' }]);
      await expect(call).rejects.toMatchObject({ timeout: true });
    } finally {
      short.close();
    }
  });
});
