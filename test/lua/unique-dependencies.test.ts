// uniqueDependencies: Karmada's set of references. Name-based references take a fast key; it must
// merge and separate exactly the references the canonical (sorted, '' dropped) JSON key does.
import { describe, expect, it } from 'vitest';
import { uniqueDependencies } from '../../src/customizations/interpreter.ts';
import type { DependentObjectReference } from '../../src/interpreter/types.ts';

const ref = (fields: Partial<DependentObjectReference>): DependentObjectReference => ({ apiVersion: 'v1', kind: 'Secret', ...fields });

describe('uniqueDependencies', () => {
  it('merges name references equal up to a missing or empty field, keeping the first', () => {
    const first = ref({ namespace: 'shop', name: 'a' });
    const out = uniqueDependencies([first, ref({ namespace: 'shop', name: 'a' }), ref({ name: 'a', namespace: 'shop' })]);
    expect(out).toEqual([first]);
    expect(out[0]).toBe(first);
    expect(uniqueDependencies([ref({ name: 'a' }), ref({ name: 'a', namespace: '' }), ref({ name: 'a', namespace: undefined })])).toHaveLength(1);
  });

  it('keeps references that differ in any field, including values that would run together', () => {
    const refs = [
      ref({ namespace: 'shop', name: 'a' }),
      ref({ namespace: 'shop', name: 'b' }),
      ref({ namespace: 'shopa', name: '' }),
      ref({ kind: 'ConfigMap', namespace: 'shop', name: 'a' }),
      ref({ apiVersion: 'v2', namespace: 'shop', name: 'a' }),
      ref({ namespace: 'sh', name: 'opa' }),
      ref({ namespace: 'sh","op', name: 'a' }),
    ];
    expect(uniqueDependencies(refs)).toEqual(refs);
  });

  it('never merges a name reference with a label-selector one, whatever the texts hold', () => {
    const tricky = ref({ apiVersion: '{"apiVersion":"v1"', kind: 'Secret"}', namespace: 'a\u0000b', name: '' });
    const refs = [tricky, ref({ namespace: 'a', name: 'b' }), ref({ namespace: 'a\u0000b' }), ref({ labelSelector: {} }), ref({})];
    expect(uniqueDependencies(refs)).toEqual(refs);
    expect(uniqueDependencies([ref({ namespace: 'a\u0000b' }), ref({ namespace: 'a\u0000b', name: '' })])).toHaveLength(1);
  });

  it('compares label-selector references by value, apart from name references', () => {
    const selector = ref({ namespace: 'shop', labelSelector: { matchLabels: { app: 'web' } } });
    const refs = [
      selector,
      ref({ namespace: 'shop' }),
      ref({ namespace: 'shop', labelSelector: { matchLabels: { app: 'web' } } }),
      ref({ namespace: 'shop', labelSelector: {} }),
    ];
    expect(uniqueDependencies(refs)).toEqual([selector, refs[1], refs[3]]);
  });
});
