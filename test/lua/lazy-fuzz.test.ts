// Random inputs and random scripts (reads, writes, deletes, copies, pairs, next, #, ipairs, table.*),
// lazy conversion against eager conversion: same result, error and printed lines. Fixed seed.
import { afterAll, describe, expect, it } from 'vitest';
import type { KObject } from '../../src/interpreter/types.ts';
import { LazyEagerPair } from './lazy-compare.ts';

const pair = new LazyEagerPair();
afterAll(() => pair.close());

let seed = 20261122;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const KEYS = ['a', 'b', 'spec', 'status', '1', '2', '__index', 'x.y', 'list'];

function json(depth: number): unknown {
  const r = random();
  if (depth >= 4 || r < 0.3) return pick([null, 0, -0, 1, 2.5, -7, 1e20, 'text', '', 'True', true, false]);
  if (r < 0.4) return pick([{}, []]);
  if (r < 0.65) return Array.from({ length: Math.floor(random() * 5) }, () => json(depth + 1));
  const object: Record<string, unknown> = {};
  for (const key of KEYS) if (random() < 0.35) object[key] = json(depth + 1);
  return object;
}

/** A Lua expression for a path into `o` (string keys, sometimes integer indices). */
function path(): string {
  let expression = 'o';
  for (let i = 0, n = 1 + Math.floor(random() * 3); i < n; i++) {
    expression += random() < 0.25 ? `[${1 + Math.floor(random() * 3)}]` : `[${JSON.stringify(pick(KEYS))}]`;
  }
  return expression;
}

const LITERALS = ['1', '"s"', 'true', 'nil', '{}', '{1, 2}', '{k = "v"}', '0/0'];

function statement(): string {
  const p = path();
  const parent = p.slice(0, p.lastIndexOf('['));
  // Guarded so that most statements run: `t(expr)` is nil unless the whole path exists.
  const guard = (expression: string) => `pcall(function() return ${expression} end)`;
  switch (Math.floor(random() * 11)) {
    case 0:
      return `do local ok, v = ${guard(p)}; emit(type(v)); if type(v) ~= "table" then emit(tostring(v)) end end`;
    case 1:
      return `do local ok, t = ${guard(parent)}; if type(t) == "table" then ${p} = ${pick(LITERALS)} end end`;
    case 2:
      return `do local ok, t = ${guard(parent)}; if type(t) == "table" then ${p} = nil end end`;
    case 3:
      return `do local ok, t = ${guard(p)}; if type(t) == "table" then for k, v in pairs(t) do emit(tostring(k) .. "=" .. type(v)) end end end`;
    case 4:
      return `do local ok, t = ${guard(p)}; if type(t) == "table" then emit("#" .. #t) end end`;
    case 5:
      return `do local ok, t = ${guard(p)}; if type(t) == "table" then for i, v in ipairs(t) do emit(i .. type(v)) end end end`;
    case 6:
      return `do local ok, t = ${guard(p)}; if type(t) == "table" then emit(tostring(next(t))) end end`;
    case 7:
      return `do local ok, t = ${guard(p)}; if type(t) == "table" then table.insert(t, ${pick(['1', '"z"', '{}'])}) end end`;
    case 8:
      return `do local ok, t = ${guard(p)}; if type(t) == "table" then emit(tostring(table.remove(t))) end end`;
    case 9:
      return `do local ok, v = ${guard(p)}; local ok2, t = ${guard(path().replace(/\[[^\]]*\]$/, ''))}; if type(t) == "table" then t.copy = v end end`;
    default:
      return `do local ok, t = ${guard(p)}; if type(t) == "table" then local n = 0; for _ in pairs(t) do n = n + 1 end; emit("n" .. n .. " maxn" .. table.maxn(t)) end end`;
  }
}

describe('lazy conversion against eager conversion on random inputs and scripts', () => {
  it('gives the same outcome for 400 random cases', async () => {
    const outcomes = { ok: 0, error: 0 };
    for (let i = 0; i < 400; i++) {
      const object = { apiVersion: 'v1', kind: 'Fuzz', ...(json(0) as object) } as KObject;
      for (const key of KEYS) if (random() < 0.5) object[key] = json(1);
      const body = Array.from({ length: 1 + Math.floor(random() * 8) }, statement).join('\n');
      const script = `local out = {}\nlocal function emit(s) out[#out + 1] = s end\nfunction ReviseReplica(o, r)\n${body}\nprint(table.concat(out, ","))\nreturn o\nend`;
      try {
        const outcome = await pair.same('replicaRevision', script, { object, replicas: 1 });
        outcomes[outcome.ok ? 'ok' : 'error']++;
      } catch (err) {
        throw new Error(`case ${i}\n${JSON.stringify(object)}\n${script}\n${(err as Error).message}`, { cause: err });
      }
    }
    // Both kinds occur (writes of 0/0, shared tables and mixed keys make encoding errors).
    expect(outcomes.ok).toBeGreaterThan(100);
    expect(outcomes.error).toBeGreaterThan(10);
  });
});
