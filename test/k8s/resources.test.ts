import { describe, expect, it } from 'vitest';
import { addResourceLists, canonicalResourceList, maxOfResourceLists, maxResourceLists, resourceListsEqual } from '../../src/k8s/resources.ts';

describe('addResourceLists', () => {
  it('sums per resource and keeps names present on one side only', () => {
    expect(addResourceLists({ cpu: '500m', memory: '512Mi' }, { cpu: '100m', memory: '64Mi', 'nvidia.com/gpu': '1' })).toEqual({
      cpu: '600m',
      memory: '576Mi',
      'nvidia.com/gpu': '1',
    });
  });
  it("prints canonical strings and keeps the first operand's format", () => {
    expect(addResourceLists({ cpu: '500m' }, { cpu: '500m' })).toEqual({ cpu: '1' });
    expect(addResourceLists({ memory: '1Gi' }, { memory: '1G' })).toEqual({ memory: '2073741824' });
    expect(addResourceLists({ memory: '1.5Gi' }, undefined)).toEqual({ memory: '1536Mi' });
  });
  it('accepts JSON numbers and skips null entries', () => {
    expect(addResourceLists({ cpu: 1, memory: null }, { cpu: '250m' })).toEqual({ cpu: '1250m' });
  });
  it('handles missing lists', () => {
    expect(addResourceLists(undefined, undefined)).toEqual({});
  });
  it('names the resource when a quantity is invalid', () => {
    expect(() => addResourceLists({ cpu: 'lots' }, {})).toThrow(/resource "cpu"/);
  });
});

describe('maxResourceLists', () => {
  it('takes the larger value per resource by value, not by spelling', () => {
    expect(maxResourceLists({ cpu: '600m', memory: '576Mi' }, { cpu: '1', memory: '256Mi' })).toEqual({
      cpu: '1',
      memory: '576Mi',
    });
    expect(maxResourceLists({ memory: '1G' }, { memory: '1Gi' })).toEqual({ memory: '1Gi' });
  });
  it('keeps the first spelling on a tie', () => {
    expect(maxResourceLists({ cpu: '1' }, { cpu: '1000m' })).toEqual({ cpu: '1' });
    expect(maxResourceLists({ cpu: '1e3' }, { cpu: '1k' })).toEqual({ cpu: '1e3' });
  });
  it('unions names', () => {
    expect(maxResourceLists({ cpu: '2' }, { 'ephemeral-storage': '1Gi' })).toEqual({
      cpu: '2',
      'ephemeral-storage': '1Gi',
    });
  });
});

describe('canonicalResourceList / resourceListsEqual', () => {
  it('canonicalises every value', () => {
    expect(canonicalResourceList({ cpu: '1000m', memory: '1024Mi' })).toEqual({ cpu: '1', memory: '1Gi' });
  });
  it('compares quantity-aware', () => {
    expect(resourceListsEqual({ cpu: '1', memory: '1Gi' }, { memory: '1024Mi', cpu: '1000m' })).toBe(true);
    expect(resourceListsEqual({ cpu: '1' }, { cpu: '1', memory: '1Gi' })).toBe(false);
    expect(resourceListsEqual({ cpu: '1' }, { cpu: '1001m' })).toBe(false);
  });
});

describe('maxOfResourceLists', () => {
  it('equals maxResourceLists folded over the lists, ties keeping the first spelling', () => {
    const lists = [
      { cpu: '500m', memory: '1Gi' },
      { cpu: '0.5', 'nvidia.com/gpu': 1 },
      undefined,
      { memory: '1073741824', 'example.com/a': '2' },
      { cpu: '2', 'example.com/a': null },
    ];
    const folded = lists.reduce<Record<string, string>>((acc, list) => maxResourceLists(acc, list), {});
    expect(maxOfResourceLists(lists)).toEqual(folded);
    expect(maxOfResourceLists(lists)).toEqual({ cpu: '2', memory: '1Gi', 'nvidia.com/gpu': '1', 'example.com/a': '2' });
  });

  it('takes many lists with distinct resource names in one pass (a request cannot make it quadratic)', () => {
    const lists = Array.from({ length: 20_000 }, (_, i) => ({ [`example.com/r${i}`]: String(i + 1) }));
    const result = maxOfResourceLists(lists);
    expect(Object.keys(result)).toHaveLength(20_000);
    expect(result['example.com/r19999']).toBe('20k');
  });
});
