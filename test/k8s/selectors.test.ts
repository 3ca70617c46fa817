import { describe, expect, it } from 'vitest';
import { MAX_SELECTOR_ERRORS, isValidLabelValue, labelSelectorErrors, labelSelectorMatches } from '../../src/k8s/selectors.ts';

describe('labelSelectorMatches', () => {
  const labels = { app: 'web', tier: 'frontend', 'app.kubernetes.io/version': '1.2' };
  it('an absent selector matches nothing, an empty one everything', () => {
    expect(labelSelectorMatches(undefined, labels)).toBe(false);
    expect(labelSelectorMatches({}, labels)).toBe(true);
    expect(labelSelectorMatches({}, undefined)).toBe(true);
  });
  it('matchLabels needs every pair', () => {
    expect(labelSelectorMatches({ matchLabels: { app: 'web' } }, labels)).toBe(true);
    expect(labelSelectorMatches({ matchLabels: { app: 'web', tier: 'backend' } }, labels)).toBe(false);
    expect(labelSelectorMatches({ matchLabels: { missing: 'x' } }, labels)).toBe(false);
  });
  it.each([
    [{ key: 'tier', operator: 'In', values: ['frontend', 'edge'] }, true],
    [{ key: 'tier', operator: 'In', values: ['backend'] }, false],
    [{ key: 'missing', operator: 'In', values: ['x'] }, false],
    [{ key: 'tier', operator: 'NotIn', values: ['backend'] }, true],
    [{ key: 'missing', operator: 'NotIn', values: ['x'] }, true],
    [{ key: 'tier', operator: 'NotIn', values: ['frontend'] }, false],
    [{ key: 'app.kubernetes.io/version', operator: 'Exists' }, true],
    [{ key: 'missing', operator: 'Exists' }, false],
    [{ key: 'missing', operator: 'DoesNotExist' }, true],
    [{ key: 'app', operator: 'DoesNotExist' }, false],
  ])('%j -> %s', (expression, expected) => {
    expect(labelSelectorMatches({ matchExpressions: [expression] }, labels)).toBe(expected);
  });
  it('throws on an invalid selector', () => {
    expect(() => labelSelectorMatches({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, labels)).toThrow(
      /not a valid label selector operator/,
    );
  });
});

describe('labelSelectorErrors', () => {
  it('accepts valid selectors', () => {
    expect(labelSelectorErrors({ matchLabels: { 'example.com/app': 'web' }, matchExpressions: [{ key: 'x', operator: 'Exists' }] })).toEqual([]);
    expect(labelSelectorErrors(undefined)).toEqual([]);
  });
  it('reports bad keys, values and operator/value combinations', () => {
    const errors = labelSelectorErrors({
      matchLabels: { 'bad key': 'v', ok: '-bad-' },
      matchExpressions: [
        { key: 'a', operator: 'In', values: [] },
        { key: 'b', operator: 'Exists', values: ['x'] },
        { key: 'c', operator: 'Equals', values: ['x'] },
      ],
    });
    expect(errors).toHaveLength(5);
    expect(errors.join('\n')).toMatch(/invalid label key "bad key"/);
    expect(errors.join('\n')).toMatch(/invalid value "-bad-"/);
    expect(errors.join('\n')).toMatch(/non-empty for In/);
    expect(errors.join('\n')).toMatch(/empty for Exists/);
    expect(errors.join('\n')).toMatch(/"Equals" is not a valid/);
  });
  it('reports at most MAX_SELECTOR_ERRORS problems, each quoting the request value cut short', () => {
    const values = Array.from({ length: 100_000 }, () => `-${'v'.repeat(1000)}`);
    const errors = labelSelectorErrors({ matchExpressions: [{ key: 'k', operator: 'In', values }] });
    expect(errors).toHaveLength(MAX_SELECTOR_ERRORS);
    for (const error of errors) expect(error).toMatch(/^matchExpressions\[0\]: invalid value "-v{63}"\.\.\. \(1001 characters\)$/);
    const manyExpressions = Array.from({ length: 100_000 }, () => ({ key: 'k', operator: { huge: 'o'.repeat(10_000) } }));
    const message = (() => {
      try {
        labelSelectorMatches({ matchExpressions: manyExpressions as never }, {});
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(message?.length).toBeLessThan(MAX_SELECTOR_ERRORS * 200);
  });
  it('label values: empty allowed, 63 characters max', () => {
    expect(isValidLabelValue('')).toBe(true);
    expect(isValidLabelValue('a'.repeat(63))).toBe(true);
    expect(isValidLabelValue('a'.repeat(64))).toBe(false);
    expect(isValidLabelValue('web-8a1e')).toBe(true);
    expect(isValidLabelValue('3/5')).toBe(false);
  });
});
