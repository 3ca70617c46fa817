// Preservation under the JSONPath caps (src/jsonpath/limits.ts) and the per-request caps of this folder:
// a rule past a cap fails like a rule whose key is missing, the other rules are still evaluated, and
// all rules together stay within MAX_PRESERVATION_VALUES.

import { describe, expect, it } from 'vitest';
import { MAX_JSONPATH_OUTPUT_CHARS, MAX_JSONPATH_VALUES } from '../../src/jsonpath/index.ts';
import { evaluatePreservation, MAX_PRESERVATION_VALUES } from '../../src/preservation/evaluate.ts';
import { MAX_PRESERVATION_RULES, PreservationInputError, rulesFromPolicy, validateRules } from '../../src/preservation/policy.ts';

function chain(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { b: 0 };
  for (let i = 1; i <= depth; i++) value = { a: value, b: i };
  return value;
}

describe('rules past the JSONPath caps', () => {
  it('fail with the missing-key error shape, without a map-order warning, and the next rule still runs', () => {
    const status = { ...chain(300), ready: 3 };
    const result = evaluatePreservation(
      [
        { aliasLabelName: 'example.io/attack', jsonPath: '{..a..a..a}' },
        { aliasLabelName: 'example.io/everything', jsonPath: '{..}' },
        { aliasLabelName: 'example.io/missing', jsonPath: '{.nope}' },
        { aliasLabelName: 'example.io/ready', jsonPath: '{.ready}' },
      ],
      status,
    );
    expect(result.errors).toEqual([
      {
        aliasLabelName: 'example.io/attack',
        message: `failed to execute jsonpath "{..a..a..a}": evaluation stopped after ${MAX_JSONPATH_VALUES} values (a limit of this server; the template visits too much of the data)`,
      },
      {
        aliasLabelName: 'example.io/everything',
        message: `failed to execute jsonpath "{..}": the result is longer than ${MAX_JSONPATH_OUTPUT_CHARS} characters (a limit of this server; a label value has at most 63)`,
      },
      { aliasLabelName: 'example.io/missing', message: 'failed to execute jsonpath "{.nope}": nope is not found' },
    ]);
    expect(result.labels).toEqual({ 'example.io/ready': '3' });
    expect(result.warnings).toEqual([]);
  });

  it('share one budget: expensive rules add up to MAX_PRESERVATION_VALUES at most', () => {
    // per rule: 1 for `.items`, then per item 1 tested by the filter, 1 for `@.n` and 1 for the literal
    const items = Array.from({ length: 30_000 }, (_, i) => ({ n: i }));
    const rules = Array.from({ length: 5 }, (_, i) => ({ aliasLabelName: `example.io/r${i}`, jsonPath: '{.items[?(@.n == -1.0)]}' }));
    const rulesThatFit = Math.floor(MAX_PRESERVATION_VALUES / (3 * items.length + 1));
    expect(rulesThatFit).toBe(2);
    const result = evaluatePreservation(rules, { items });
    expect(result.errors.map((e) => e.aliasLabelName)).toEqual(rules.slice(rulesThatFit).map((r) => r.aliasLabelName));
    for (const error of result.errors) expect(error.message).toMatch(/evaluation stopped after 200000 values/);
  });

  it('long alias names and templates are cut in warnings', () => {
    const alias = 'x'.repeat(10_000);
    const result = evaluatePreservation([{ aliasLabelName: alias, jsonPath: 'y'.repeat(4000) }], { a: 1 });
    for (const warning of result.warnings) expect(warning.message.length).toBeLessThan(1000);
  });
});

describe('MAX_PRESERVATION_RULES', () => {
  const rule = { aliasLabelName: 'example.io/a', jsonPath: '{.a}' };
  it('accepts that many rules and refuses one more', () => {
    expect(validateRules(Array(MAX_PRESERVATION_RULES).fill(rule), 'rules')).toHaveLength(MAX_PRESERVATION_RULES);
    expect(() => validateRules(Array(MAX_PRESERVATION_RULES + 1).fill(rule), 'rules')).toThrow(PreservationInputError);
    expect(() => validateRules(Array(MAX_PRESERVATION_RULES + 1).fill(rule), 'rules')).toThrow(
      `rules: ${MAX_PRESERVATION_RULES + 1} rules, more than ${MAX_PRESERVATION_RULES} (a limit of this server)`,
    );
  });

  it('counts the rules of every policy in a List together', () => {
    const policy = (i: number) => ({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: `p${i}` },
      spec: {
        failover: {
          application: { statePreservation: { rules: Array.from({ length: 60 }, (_, j) => ({ aliasLabelName: `example.io/r${j}`, jsonPath: `{.r${i}}` })) } },
        },
      },
    });
    expect(() => rulesFromPolicy({ kind: 'PropagationPolicyList', items: [policy(1), policy(2)] })).toThrow(/120 rules, more than 100/);
  });

  it('cuts a long policy name in its messages', () => {
    const name = 'n'.repeat(100_000);
    try {
      rulesFromPolicy({ apiVersion: 'v1', kind: 'PropagationPolicy', metadata: { name } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PreservationInputError);
      expect((error as Error).message.length).toBeLessThan(300);
    }
  });
});
