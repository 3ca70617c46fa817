// The patch answered for ReviseReplica, Retain and AggregateStatus: fast-json-patch's operations, compared
// as Karmada's Go decoding reads the object (a field the interpreter did not change is never in the
// patch), bounded when built from a script's result, and applied copy-on-write on the main thread.
import fc from 'fast-check';
import fastJsonPatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { goDecoded } from '../../src/protocol/go-json.ts';
import { applyKnownPatch, diff, diffText, encodePatch, decodePatch, PatchTooLargeError } from '../../src/protocol/patch.ts';

const key = fc.oneof(fc.constantFrom('a', 'b', 'a/b', '~0', 'x~1y', '~', '/', '0', '1', '-'), fc.string({ maxLength: 3 }));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.boolean(),
    fc.integer({ min: -3, max: 3 }),
    fc.constantFrom('x', 'y', ''),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const object = fc.dictionary(key, json, { maxKeys: 5 });

describe('diff', () => {
  it('writes the operations fast-json-patch compare writes, in its order', () => {
    fc.assert(
      fc.property(object, object, (a, b) => {
        expect(diff(a, b)).toEqual(fastJsonPatch.compare(a, b));
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves out a field or key the interpreter did not change, however JSON.parse and Go read its text', () => {
    const sent = JSON.parse('{"kind":"W","spec":{"replicas":1,"weird":"\\ufeffabc","lone":"\\ud800","\\ufeffk":"v","\\udc00k":{"a":"\\udfff"}}}');
    // What a Lua script returns: the object as Go decoded it (one U+FFFD per lone surrogate), one field changed.
    const returned = structuredClone(goDecoded(sent));
    returned.spec.replicas = 3;
    expect(returned.spec.lone).toBe('\ufffd');
    expect(diff(sent, returned)).toEqual([{ op: 'replace', path: '/spec/replicas', value: 3 }]);
    expect(JSON.parse(diffText(sent, returned))).toEqual([{ op: 'replace', path: '/spec/replicas', value: 3 }]);
    // A field removed next to a key Go reads differently: the key is not re-added.
    delete returned.spec.weird;
    expect(diff(sent, returned)).toEqual([
      { op: 'remove', path: '/spec/weird' },
      { op: 'replace', path: '/spec/replicas', value: 3 },
    ]);
    // Text that really changed is still answered.
    returned.spec['\ufeffk'] = 'w';
    expect(diff(sent, returned)).toContainEqual({ op: 'replace', path: '/spec/\ufeffk', value: 'w' });
  });
});

describe('diffText', () => {
  it('is the JSON of diff(), refused past its bound', () => {
    const before = { kind: 'W', spec: { a: 1 } };
    const after = { kind: 'W', spec: { a: 2, big: 'x'.repeat(5000) } };
    expect(JSON.parse(diffText(before, after, 100_000))).toEqual(diff(before, after));
    expect(() => diffText(before, after, 4096)).toThrow(PatchTooLargeError);
    expect(diffText(before, before, 2)).toBe('[]');
  });
});

describe('applyKnownPatch', () => {
  it('gives what applying the patch to a copy gives, shares what it does not change, and leaves the base alone', () => {
    fc.assert(
      fc.property(object, object, (a, b) => {
        const before = JSON.stringify(a);
        const text = diffText(a, b);
        const ops = JSON.parse(text);
        const result = applyKnownPatch(a, ops, text);
        expect(result).toEqual(fastJsonPatch.applyPatch(structuredClone(a), ops, false, true).newDocument);
        expect(JSON.stringify(a)).toBe(before);
        expect(diff(a, result)).toBe(ops);
        expect(decodePatch(encodePatch(diff(a, result)))).toEqual(ops);
        for (const k of Object.keys(a)) {
          if (
            typeof a[k] === 'object' &&
            a[k] !== null &&
            !ops.some((op: { path: string }) => op.path === '' || op.path.split('/')[1] === k.replace(/~/g, '~0').replace(/\//g, '~1'))
          ) {
            expect(result[k]).toBe(a[k]);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps a key named __proto__ an own key of the copies', () => {
    const base = JSON.parse('{"kind":"W","metadata":{"annotations":{"__proto__":"a"}}}');
    const text = JSON.stringify([{ op: 'add', path: '/metadata/annotations/b', value: 'c' }]);
    const result = applyKnownPatch(base, JSON.parse(text), text);
    expect(Object.keys(result.metadata.annotations)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(result.metadata.annotations)).toBe(Object.prototype);
    expect(base.metadata.annotations).toEqual(JSON.parse('{"__proto__":"a"}'));
  });
});
