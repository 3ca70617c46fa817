import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../src/protocol/exchange.ts';

function nested(levels: number, kind: 'object' | 'array'): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = kind === 'object' ? { child: value } : [value];
  return value;
}

describe('nestsDeeperThan', () => {
  it.each(['object', 'array'] as const)('counts %s levels exactly', (kind) => {
    expect(nestsDeeperThan(nested(10, kind), 10)).toBe(false);
    expect(nestsDeeperThan(nested(11, kind), 10)).toBe(true);
  });

  it('scalars and empty containers do not nest', () => {
    expect(nestsDeeperThan('x', 0)).toBe(false);
    expect(nestsDeeperThan(null, 0)).toBe(false);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan([[]], 1)).toBe(true);
  });

  it('finds the deep branch behind shallow siblings and in mixed containers', () => {
    const value = { a: 1, b: [{ c: 'x' }], d: { e: [{ f: { g: [] } }] } };
    expect(nestsDeeperThan(value, 6)).toBe(false);
    expect(nestsDeeperThan(value, 5)).toBe(true);
  });

  it('sees a key named __proto__ (JSON.parse keeps it as an own property)', () => {
    const value = JSON.parse('{"__proto__": {"a": {"b": {}}}}');
    expect(nestsDeeperThan(value, 4)).toBe(false);
    expect(nestsDeeperThan(value, 3)).toBe(true);
  });

  it('stays within the limit on hostile depth (no stack overflow)', () => {
    expect(nestsDeeperThan(nested(200_000, 'array'), 1000)).toBe(true);
  });
});
