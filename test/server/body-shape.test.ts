// The bounds on what a body holds, counted from its bytes: exact counts for valid JSON whatever the
// pieces it arrives in, and a refusal naming the bound once one is passed.
import { describe, expect, it } from 'vitest';
import { BodyShape, MAX_BODY_VALUES, MAX_OBJECT_KEYS } from '../../src/server/body-shape.ts';
import { MAX_NESTING_DEPTH } from '../../src/protocol/exchange.ts';

/** Values of a parsed JSON document as BodyShape counts them: every value, containers and the top level included. */
function valuesOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 1;
  return 1 + Object.values(value).reduce<number>((sum, v) => sum + valuesOf(v), 0);
}

function shapeOf(text: string, pieceBytes = Infinity, maxValues?: number, maxKeys?: number): BodyShape {
  const shape = new BodyShape(maxValues, maxKeys);
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; at += Math.min(pieceBytes, bytes.length)) shape.feed(bytes.subarray(at, at + pieceBytes));
  return shape;
}

const documents = [
  '{}',
  '[]',
  '0',
  '"a string"',
  '[[], {}, [{}], [1, [2, [3]]]]',
  ' { "a" : [ 1 , 2 , 3 ] , "b" : { } , "c" : [ ] } ',
  '{"brackets in strings": "{[,:]}", "escaped quote": "say \\"[{\\" here", "backslash": "\\\\", "u": "\\u005b"}',
  '{"ü€😀": ["ä", "日本語", {"k": "\\"}"}]}',
  JSON.stringify({ apiVersion: 'v1', kind: 'X', metadata: { labels: { a: 'b' } }, spec: { list: [1, 'two', null, true, { x: [] }] } }),
];

describe('BodyShape', () => {
  it.each(documents)('counts every value of %s, in one piece or byte by byte', (text) => {
    const expected = valuesOf(JSON.parse(text));
    expect(shapeOf(text).values).toBe(expected);
    expect(shapeOf(text, 1).values).toBe(expected);
    expect(shapeOf(text, 3).values).toBe(expected);
  });

  it('refuses past the values bound, naming it', () => {
    const text = JSON.stringify(Array.from({ length: 11 }, () => ({})));
    expect(shapeOf(text, Infinity, 12).problem).toBeUndefined();
    expect(shapeOf(text, 5, 11).problem).toBe('request has more than 11 JSON values; Kubernetes objects have tens of thousands at most');
  });

  it('counts keys per object: siblings and nested objects do not add up', () => {
    const five = (prefix: string) => Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`${prefix}${i}`, { inner: { x: 1, y: 2 } }]));
    const text = JSON.stringify({ a: five('a'), b: [five('b'), five('c')] });
    expect(shapeOf(text, 7, Infinity, 5).problem).toBeUndefined();
    const six = JSON.stringify({ a: { ...five('a'), extra: 1 } });
    expect(shapeOf(six, 7, Infinity, 5).problem).toBe('request has an object with more than 5 keys; Kubernetes objects have a few thousand at most');
  });

  it(`accepts ${MAX_NESTING_DEPTH} levels of nesting and refuses one more`, () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    expect(shapeOf(nested(MAX_NESTING_DEPTH), 64).problem).toBeUndefined();
    expect(shapeOf(nested(MAX_NESTING_DEPTH + 1), 64).problem).toBe(
      `request nests deeper than ${MAX_NESTING_DEPTH} levels; Kubernetes objects nest a few dozen`,
    );
    // Many levels one after another are not one deep nesting.
    expect(shapeOf(`[${Array.from({ length: 3000 }, () => nested(10)).join(',')}]`).problem).toBeUndefined();
  });

  it('the default bounds refuse the red team bodies and pass a real-sized one', () => {
    const keys = JSON.stringify({ labels: Object.fromEntries(Array.from({ length: MAX_OBJECT_KEYS + 1 }, (_, i) => [`k${i}`, 0])) });
    expect(shapeOf(keys, 65536).problem).toMatch(/more than 20000 keys/);
    const empties = `[${'{},'.repeat(MAX_BODY_VALUES)}{}]`;
    expect(shapeOf(empties, 65536).problem).toMatch(/more than 100000 JSON values/);
    const nodes = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`wf-${i}`, { id: `wf-${i}`, phase: 'Succeeded', children: [`wf-${i + 1}`] }]));
    expect(shapeOf(JSON.stringify({ status: { nodes } }), 65536).problem).toBeUndefined();
  });

  it('stops looking once refused', () => {
    const shape = new BodyShape(3);
    expect(shape.feed(Buffer.from('[1,2,3'))).toBeDefined();
    const values = shape.values;
    expect(shape.feed(Buffer.from(',4,5,6]'))).toBe(shape.problem);
    expect(shape.values).toBe(values);
  });
});
