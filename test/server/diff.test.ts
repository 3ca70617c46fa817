// The patch between the object Karmada sent and the interpreter's answer (fast-json-patch's compare):
// applied to the original it gives the answer, shared subtrees are not walked, keys are escaped.
import fc from 'fast-check';
import fastJsonPatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { diff } from '../../src/protocol/patch.ts';

const key = fc.oneof(fc.constantFrom('a', 'b', 'a/b', '~0', 'x~1y', '~', '/', '0', '1', '-', '__proto__'), fc.string({ maxLength: 4 }));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -3, max: 3 }),
    fc.constantFrom('x', 'y', ''),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A changed copy of a JSON value: a few edits at random places, so the two share most structure. */
const edited = (value: unknown) =>
  fc.array(fc.tuple(fc.nat(), fc.nat(), json), { maxLength: 4 }).map((edits) => {
    const copy = JSON.parse(JSON.stringify(value)) as unknown;
    for (const [where, how, replacement] of edits) {
      const containers: Array<Record<string, unknown> | unknown[]> = [];
      const collect = (v: unknown) => {
        if (typeof v === 'object' && v !== null) {
          containers.push(v as Record<string, unknown>);
          for (const child of Object.values(v)) collect(child);
        }
      };
      collect(copy);
      if (containers.length === 0) continue;
      const target = containers[where % containers.length]!;
      const keys = Object.keys(target);
      if (Array.isArray(target)) {
        if (how % 3 === 0) target.push(replacement);
        else if (how % 3 === 1 && target.length > 0) target.splice(how % target.length, 1);
        else if (target.length > 0) target[how % target.length] = replacement;
      } else if (how % 3 === 0 || keys.length === 0) {
        Object.defineProperty(target, `k${how % 5}`, { value: replacement, enumerable: true, writable: true, configurable: true });
      } else if (how % 3 === 1) delete target[keys[how % keys.length]!];
      else target[keys[how % keys.length]!] = replacement;
    }
    return copy;
  });

const pair = json.chain((original) => fc.tuple(fc.constant(original), fc.oneof(edited(original), json)));

describe('diff', () => {
  it('applying the operations to the original gives the modified value', () => {
    fc.assert(
      fc.property(
        // (__proto__ keys left out: fast-json-patch's apply refuses them; test/isolation and test/lua cover them)
        pair.filter(
          ([a, b]) =>
            typeof a === 'object' &&
            a !== null &&
            !Array.isArray(a) &&
            typeof b === 'object' &&
            b !== null &&
            !Array.isArray(b) &&
            !JSON.stringify([a, b]).includes('__proto__'),
        ),
        ([original, modified]) => {
          const ops = diff(original as object, modified as object);
          const applied = fastJsonPatch.applyPatch(JSON.parse(JSON.stringify(original)), JSON.parse(JSON.stringify(ops)), false, true, false).newDocument;
          expect(applied).toEqual(modified);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('changes neither input', () => {
    const original = { spec: { replicas: 1 }, status: { ready: 1 } };
    const modified = { spec: { replicas: 1 }, status: { ready: 2, conditions: [{ type: 'Ready' }] } };
    const before = JSON.stringify([original, modified]);
    expect(diff(original, modified)).toEqual([
      { op: 'replace', path: '/status/ready', value: 2 },
      { op: 'add', path: '/status/conditions', value: [{ type: 'Ready' }] },
    ]);
    expect(JSON.stringify([original, modified])).toBe(before);
  });

  it("does not descend into a subtree both sides share (dispatch.ts shares the request's own spec or status)", () => {
    const spec = { replicas: 1, template: { spec: { containers: [{ name: 'app' }] } } };
    const original = { spec, status: { ready: 1 } };
    // A getter on the shared subtree would be read by any walk into it.
    Object.defineProperty(spec, 'template', { enumerable: true, get: () => expect.unreachable('walked a shared subtree') });
    expect(diff(original, { spec, status: { ready: 2 } })).toEqual([{ op: 'replace', path: '/status/ready', value: 2 }]);
  });

  it('escapes / and ~ in keys', () => {
    expect(diff({ 'a/b': 1, 'c~d': 1 }, { 'a/b': 2, 'c~d': 2 })).toEqual([
      { op: 'replace', path: '/c~0d', value: 2 },
      { op: 'replace', path: '/a~1b', value: 2 },
    ]);
  });
});
