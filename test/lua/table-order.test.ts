// pairs/next order as gopher-lua's LTable.Next (table.go): its array part (every positive integer key below
// MaxArrayIndex, RawSetInt) ascending, then its other keys in first-insertion order (keys/k2i). A model of
// that table, written from table.go, replays random writes, deletions and traversals that delete keys as
// they go; every traversal of the real runtime must visit the keys the model visits, in its order.
// Not modelled (a documented difference): a hash key deleted and set again keeps its first place in
// gopher-lua and moves to the end here, so the operations never set a deleted hash key again.
import { afterAll, describe, expect, it } from 'vitest';
import { LuaRuntime } from '../../src/lua/runtime.ts';
import { reflectScript, workload } from './helpers.ts';

const rt = new LuaRuntime();
afterAll(() => rt.close());

const MAX_ARRAY_INDEX = 67108864;
type Key = number | string;
const isArrayKey = (key: Key): key is number => typeof key === 'number' && Number.isInteger(key) && key >= 1 && key < MAX_ARRAY_INDEX;

/** gopher-lua's LTable, reduced to what Next reads. */
class GopherTable {
  private readonly array: Array<number | undefined> = [];
  private readonly keys: Key[] = [];
  private readonly k2i = new Map<Key, number>();
  private readonly dict = new Map<Key, number>();

  set(key: Key, value: number | undefined): void {
    if (isArrayKey(key)) {
      // RawSetInt: an index past the end pads the array with nils, even for a nil value.
      while (this.array.length < key - 1) this.array.push(undefined);
      if (this.array.length === key - 1) this.array.push(value);
      else this.array[key - 1] = value;
    } else if (value === undefined) {
      this.dict.delete(key);
    } else {
      this.dict.set(key, value);
      if (!this.k2i.has(key)) {
        this.k2i.set(key, this.keys.length);
        this.keys.push(key);
      }
    }
  }

  get(key: Key): number | undefined {
    return isArrayKey(key) ? this.array[key - 1] : this.dict.get(key);
  }

  /** LTable.Next. */
  next(key: Key | undefined): Key | undefined {
    let from = 0;
    if (key === undefined || isArrayKey(key)) {
      for (let index = key ?? 0; index < this.array.length; index++) if (this.array[index] !== undefined) return index + 1;
    } else {
      from = this.k2i.get(key)! + 1;
    }
    for (let i = from; i < this.keys.length; i++) if (this.dict.has(this.keys[i]!)) return this.keys[i];
    return undefined;
  }
}

const luaKey = (key: Key) => (typeof key === 'string' ? JSON.stringify(key) : String(key));
const printed = (key: Key) => String(key);

/** Random operations as Lua statements, applied to the model too; returns the statements and each traversal's visits. */
function scenario(seed: number): { lua: string; expected: string[] } {
  let state = seed;
  const random = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * n);
  };
  const hashKeys: Key[] = ['a', 'b', 'c', 'd', 'e', 0, -1, 2.5, MAX_ARRAY_INDEX, MAX_ARRAY_INDEX + 3];
  const deleted = new Set<Key>();
  const arrayKeys = 1 + random(12);
  const pickKey = (): Key => (random(2) === 0 ? 1 + random(arrayKeys) : hashKeys[random(hashKeys.length)]!);
  const model = new GopherTable();
  const lines: string[] = [];
  const expected: string[] = [];
  for (let step = 0; step < 300; step++) {
    if (step % 10 === 9) {
      // A traversal that deletes some keys as it meets them (the current one or another present one).
      const present: Key[] = [];
      for (let k = model.next(undefined); k !== undefined; k = model.next(k)) present.push(k);
      // Some traversals clear the table as they go (each key when met), the others delete a few keys.
      const clearing = random(3) === 0;
      const deletions = new Map<string, Key>();
      for (const k of present) {
        if (clearing) deletions.set(printed(k), k);
        else if (random(4) === 0) deletions.set(printed(k), random(2) === 0 ? k : present[random(present.length)]!);
      }
      const entries = [...deletions].map(([at, victim]) => `[${JSON.stringify(at)}] = ${luaKey(victim)}`).join(', ');
      lines.push(`visit({ ${entries} })`);
      const visits: string[] = [];
      for (let k = model.next(undefined); k !== undefined; k = model.next(k)) {
        visits.push(`${printed(k)}=${model.get(k)}`);
        const victim = deletions.get(printed(k));
        if (victim !== undefined) {
          model.set(victim, undefined);
          if (!isArrayKey(victim)) deleted.add(victim);
        }
      }
      expected.push(visits.join(' '));
      continue;
    }
    const key = pickKey();
    if (deleted.has(key)) continue;
    if (random(3) === 0) {
      lines.push(`t[${luaKey(key)}] = nil`);
      model.set(key, undefined);
      if (!isArrayKey(key)) deleted.add(key);
    } else {
      lines.push(`t[${luaKey(key)}] = ${step}`);
      model.set(key, step);
    }
  }
  return { lua: lines.join('\n'), expected };
}

describe('pairs order as gopher-lua LTable.Next', () => {
  it.each(Array.from({ length: 16 }, (_, i) => i + 1))('visits the keys the model visits, in its order, while keys are deleted (seed %i)', async (seed) => {
    const { lua, expected } = scenario(seed);
    const out = await rt.call(
      'InterpretStatus',
      reflectScript(`
      local t = {}
      local traversals = {}
      local function visit(deletions)
        local visits = {}
        for k, v in pairs(t) do
          visits[#visits + 1] = tostring(k) .. "=" .. tostring(v)
          local victim = deletions[tostring(k)]
          if victim ~= nil then t[victim] = nil end
        end
        traversals[#traversals + 1] = table.concat(visits, " ")
      end
      ${lua}
      return { traversals = traversals }`),
      [workload()],
    );
    expect(expected.length).toBeGreaterThan(10);
    expect(out.traversals).toEqual(expected);
  });
});
