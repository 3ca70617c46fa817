// repairEmptyTables looks up only the paths a result asks about in the reference objects (collecting
// all their empty fields only after many lookups). Random encodings and references, against a direct
// implementation of Karmada's collect-then-decide algorithm. Fixed seed.
import { describe, expect, it } from 'vitest';
import { repairEmptyTables } from '../../src/lua/karmada/empty-repair.ts';

let seed = 20261123;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const KEYS = ['a', 'b', 'spec', 'x.y', 'list'];

/** A JSON value; `encoded`: as the encoder gives it (empty tables are always []). */
function json(depth: number, encoded: boolean): unknown {
  const r = random();
  if (depth >= 4 || r < 0.25) return [1, 'text', true, 0][Math.floor(random() * 4)];
  if (r < 0.45) return encoded || random() < 0.5 ? [] : {};
  if (r < 0.65) return Array.from({ length: 1 + Math.floor(random() * 3) }, () => json(depth + 1, encoded));
  const object: Record<string, unknown> = {};
  for (const key of KEYS) if (random() < 0.45) object[key] = json(depth + 1, encoded);
  return Object.keys(object).length === 0 && encoded ? [] : object;
}

/** Karmada's convertEmptySliceToEmptyStructPartly with paths as key lists (what empty-repair.ts documents). */
function reference(encoded: unknown, struct: boolean, refs: unknown[]): unknown {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const arrays = new Set<string>();
  const objects = new Set<string>();
  const collect = (value: unknown, path: string[]): void => {
    const visit = (item: unknown) => {
      if (Array.isArray(item) && item.length === 0) arrays.add(JSON.stringify(path));
      else if (isObject(item) && Object.keys(item).length === 0) objects.add(JSON.stringify(path));
      else collect(item, path);
    };
    if (Array.isArray(value)) value.forEach(visit);
    else if (isObject(value))
      for (const key of Object.keys(value)) {
        path.push(key);
        visit(value[key]);
        path.pop();
      }
  };
  for (const ref of refs) collect(ref, []);
  const decide = (path: string[]) => (objects.has(JSON.stringify(path)) ? {} : arrays.has(JSON.stringify(path)) ? [] : undefined);
  const repair = (value: unknown, path: string[]): unknown => {
    const fix = (item: unknown) => (Array.isArray(item) && item.length === 0 ? decide(path) : repair(item, path));
    if (Array.isArray(value)) return value.map(fix).filter((item) => item !== undefined);
    if (!isObject(value)) return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      path.push(key);
      const item = fix(value[key]);
      path.pop();
      if (item !== undefined) out[key] = item;
    }
    return out;
  };
  if (Array.isArray(encoded) && encoded.length === 0) return struct ? {} : [];
  return repair(encoded, []);
}

describe('repairEmptyTables with reference objects', () => {
  it('decides like collecting every empty field first, on 2,000 random cases', () => {
    let changed = 0;
    for (let i = 0; i < 2000; i++) {
      const encoded = json(0, true);
      const refs = Array.from({ length: 1 + Math.floor(random() * 2) }, () => json(0, false));
      const struct = random() < 0.7;
      const expected = reference(encoded, struct, refs);
      const actual = repairEmptyTables(encoded, struct, refs);
      expect(actual, `case ${i}: ${JSON.stringify({ encoded, refs, struct })}`).toEqual(expected);
      if (JSON.stringify(expected) !== JSON.stringify(encoded)) changed++;
    }
    expect(changed).toBeGreaterThan(500);
  });

  it('still decides right after many distinct paths (when it collects instead)', () => {
    const refs = [{ spec: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i % 2 ? {} : []])) }];
    const encoded = { spec: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, []]).concat([['other', []]])) };
    const out = repairEmptyTables(encoded, true, refs) as { spec: Record<string, unknown> };
    expect(out).toEqual(reference(encoded, true, refs));
    expect(out.spec.k1).toEqual({});
    expect(out.spec.k2).toEqual([]);
    expect('other' in out.spec).toBe(false);
  });
});
