// fengari.ts rewrites two V8 slow paths in fengari's sources as they load (`delete L.stack[i]` into a
// store of undefined; `dead_strong.clear()` of every table insert only when there are dead keys).
// These tests check each rewrite reached every occurrence in the installed fengari, and that what
// depends on them (closures over loop variables, open upvalues closed on return, deep call/return
// chains, varargs; `next` over a table whose keys are deleted and re-added) behaves as before.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fengariRewrites } from '../../src/lua/fengari.js';
import { LuaRuntime } from '../../src/lua/runtime.js';
import { reflectScript } from './helpers.js';

const require = createRequire(import.meta.url);

describe('fengari stack-slot rewrite', () => {
  it('rewrote every occurrence in fengari/src', () => {
    const dir = dirname(require.resolve('fengari/src/ldo.js'));
    for (const rewrite of fengariRewrites) {
      let occurrences = 0;
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.js') && (rewrite.file === '*' || rewrite.file === f))) {
        occurrences += readFileSync(join(dir, file), 'utf8').match(new RegExp(rewrite.pattern.source, rewrite.pattern.flags))?.length ?? 0;
      }
      expect(occurrences).toBeGreaterThan(0);
      expect(rewrite.count).toBe(occurrences);
    }
  });

  it('keeps next() working over keys deleted and added during the walk', async () => {
    const rt = new LuaRuntime({ poolSize: 1 });
    try {
      const out = await rt.reflectStatus(
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
        { apiVersion: 'v1', kind: 'X' },
      );
      expect(out).toEqual({ n: 4, after: 'a=6,e=5' });
    } finally {
      rt.close();
    }
  });

  it('keeps closures, upvalues, varargs and call/return results intact', async () => {
    const rt = new LuaRuntime({ poolSize: 1 });
    try {
      const out = await rt.reflectStatus(
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
        { apiVersion: 'v1', kind: 'X' },
      );
      expect(out).toEqual({ f: 30, c: 3, deep: 6, count: 3, x: 7, sum: 10, bytes: 3, pc: false });
    } finally {
      rt.close();
    }
  });
});
