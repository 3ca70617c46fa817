import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyJson } from '../../src/interpreter/copy.ts';

describe('copyJson', () => {
  it('equals the original and shares no object or array with it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = copyJson(value);
        expect(copy).toEqual(value);
        const originals = new Set<unknown>();
        const collect = (v: unknown) => {
          if (typeof v !== 'object' || v === null) return;
          originals.add(v);
          Object.values(v).forEach(collect);
        };
        collect(value);
        const check = (v: unknown) => {
          if (typeof v !== 'object' || v === null) return;
          expect(originals.has(v)).toBe(false);
          Object.values(v).forEach(check);
        };
        check(copy);
      }),
    );
  });

  it('keeps a "__proto__" key as data instead of setting the prototype', () => {
    const parsed = JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":"yes"},"app":"web"}}}');
    const copy = copyJson(parsed);
    expect(Object.getPrototypeOf(copy.metadata.labels)).toBe(Object.prototype);
    expect(Object.keys(copy.metadata.labels)).toEqual(['__proto__', 'app']);
    expect(copy.metadata.labels.polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed));
  });

  it('mutating the copy leaves the original unchanged', () => {
    const original = { spec: { replicas: 3, template: { spec: { containers: [{ name: 'a' }] } } } };
    const copy = copyJson(original);
    copy.spec.replicas = 5;
    copy.spec.template.spec.containers[0]!.name = 'b';
    copy.spec.template.spec.containers.push({ name: 'c' });
    expect(original).toEqual({ spec: { replicas: 3, template: { spec: { containers: [{ name: 'a' }] } } } });
  });
});
