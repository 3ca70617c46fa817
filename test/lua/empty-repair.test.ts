// Direct golden tests of the two pure steps of ConvertLuaResultInto after encoding.
import { describe, expect, it } from 'vitest';
import { repairEmptyTables } from '../../src/lua/karmada/empty-repair.ts';
import { componentsSchema, decodeTyped, dependenciesSchema, replicaRequirementsSchema, TypedDecodeError } from '../../src/lua/karmada/typed.ts';

describe('repairEmptyTables', () => {
  const reference = {
    kind: 'Job',
    metadata: { annotations: {} },
    spec: { template: { spec: { containers: [{ name: 'a', env: [], securityContext: {} }], volumes: [] } } },
  };

  it('maps [] by index-free path: {} where the reference had {}, [] where it had [], deleted elsewhere', () => {
    const encoded = {
      kind: 'Job',
      metadata: { annotations: [], labels: [] },
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'a', env: [], securityContext: [] },
              { name: 'b', env: [], securityContext: [] },
            ],
            volumes: [],
          },
        },
      },
    };
    expect(repairEmptyTables(encoded, true, [reference])).toEqual({
      kind: 'Job',
      metadata: { annotations: {} },
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'a', env: [], securityContext: {} },
              { name: 'b', env: [], securityContext: {} },
            ],
            volumes: [],
          },
        },
      },
    });
  });

  it('deletes empty elements of arrays and keeps emptied parents', () => {
    expect(repairEmptyTables({ a: [[], 1, []], b: { c: [] } }, true)).toEqual({ a: [1], b: {} });
  });

  it('treats the whole result by target kind', () => {
    expect(repairEmptyTables([], true)).toEqual({});
    expect(repairEmptyTables([], false)).toEqual([]);
    expect(repairEmptyTables([[], { name: 'x', list: [] }], false)).toEqual([{ name: 'x' }]);
  });

  it('does not confuse a dotted key with a nested path', () => {
    const ref = { a: { 'b.c': {} } };
    expect(repairEmptyTables({ a: { 'b.c': [] }, x: { b: { c: [] } } }, true, [ref])).toEqual({ a: { 'b.c': {} }, x: { b: {} } });
  });
});

describe('typed decoding (Go encoding/json)', () => {
  it('decodes requirements with case-insensitive names, canonical quantities, omitempty output', () => {
    const out = decodeTyped(
      {
        NodeClaim: {
          nodeSelector: { zone: 'a' },
          Tolerations: [{ key: 'k', operator: 'Exists', tolerationSeconds: 30 }],
          hardNodeAffinity: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'z', operator: 'In', values: ['a'] }] }] },
        },
        resourcerequest: { cpu: 0.25, memory: '1073741824' },
        namespace: '',
        extra: true,
      },
      replicaRequirementsSchema,
    );
    expect(out).toEqual({
      nodeClaim: {
        hardNodeAffinity: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'z', operator: 'In', values: ['a'] }] }] },
        nodeSelector: { zone: 'a' },
        tolerations: [{ key: 'k', operator: 'Exists', tolerationSeconds: 30 }],
      },
      resourceRequest: { cpu: '250m', memory: '1073741824' }, // DecimalSI input stays DecimalSI
    });
  });

  it('rejects type mismatches with Go-like messages', () => {
    expect(() => decodeTyped({ namespace: 3 }, replicaRequirementsSchema)).toThrow(TypedDecodeError);
    expect(() => decodeTyped({ namespace: 3 }, replicaRequirementsSchema)).toThrow(
      /cannot unmarshal number 3 into Go struct field ReplicaRequirements.namespace of type string/,
    );
    expect(() => decodeTyped({ nodeClaim: { tolerations: [{ tolerationSeconds: 1.5 }] } }, replicaRequirementsSchema)).toThrow(/of type int64/);
    expect(() => decodeTyped({ resourceRequest: { cpu: 'lots' } }, replicaRequirementsSchema)).toThrow(/quantities must match the regular expression/);
    expect(() => decodeTyped({ name: 'x' }, componentsSchema)).toThrow(/cannot unmarshal object into Go value of type \[\]v1alpha2.Component/);
  });

  it('fills required fields with Go zero values and keeps a present empty pointer struct', () => {
    expect(decodeTyped([{ replicaRequirements: {} }], componentsSchema)).toEqual([{ name: '', replicas: 0, replicaRequirements: {} }]);
    expect(decodeTyped([{ kind: 'Secret', name: 's', labelSelector: { matchLabels: { a: 'b' } } }], dependenciesSchema)).toEqual([
      { apiVersion: '', kind: 'Secret', name: 's', labelSelector: { matchLabels: { a: 'b' } } },
    ]);
  });
});
