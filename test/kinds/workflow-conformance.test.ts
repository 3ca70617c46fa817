// Karmada's own Workflow cases (../shared/conformance) and ours (the kind's testdata/), run directly
// against the module. Cases listed in DELIBERATE_DIFFERENCES must still differ: if one starts passing,
// the README's list of differences is stale.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { workflowInterpreter } from '../../interpreters/argoproj.io/v1alpha1/Workflow/index.js';
import { loadCases, runCase } from './workflow-cases.js';

const conformanceDir = fileURLToPath(new URL('../../../shared/conformance/karmada/argoproj.io/v1alpha1/Workflow/testdata', import.meta.url));

const kindDir = fileURLToPath(new URL('../../interpreters/argoproj.io/v1alpha1/Workflow', import.meta.url));

/** Karmada case name → why we answer differently (conformance-differences.yaml, explained in README.md). */
const DELIBERATE_DIFFERENCES: Record<string, string> = Object.fromEntries(
  (parse(readFileSync(join(kindDir, 'conformance-differences.yaml'), 'utf8')) as Array<{ name: string; reason: string }>).map((d) => [d.name, d.reason]),
);

describe('Workflow: Karmada conformance cases', () => {
  const cases = loadCases(conformanceDir);
  it('loads every Karmada case', () => {
    expect(cases.length).toBeGreaterThanOrEqual(11);
  });
  for (const testCase of cases) {
    const reason = DELIBERATE_DIFFERENCES[testCase.name];
    it(`${testCase.operation}: ${testCase.name}${reason ? ' (deliberately different)' : ''}`, async () => {
      const { expected, actual } = await runCase(workflowInterpreter, testCase);
      if (reason) expect(actual, reason).not.toEqual(expected);
      else expect(actual).toEqual(expected);
    });
  }
  it('names only existing cases as deliberate differences, each explained in the README', () => {
    const names = new Set(cases.map((testCase) => testCase.name));
    const readme = readFileSync(join(kindDir, 'README.md'), 'utf8');
    expect(Object.keys(DELIBERATE_DIFFERENCES).length).toBeGreaterThan(0);
    for (const name of Object.keys(DELIBERATE_DIFFERENCES)) {
      expect(names.has(name), name).toBe(true);
      expect(readme, name).toContain(name);
    }
  });
});

describe('Workflow: testdata', () => {
  const cases = loadCases(join(kindDir, 'testdata'));
  it('covers every operation the module implements', () => {
    const operations = new Set(cases.map((testCase) => testCase.operation));
    expect([...operations].sort()).toEqual(
      ['aggregatestatus', 'interpretdependency', 'interprethealth', 'interpretreplica', 'interpretstatus', 'retain', 'revisereplica'],
    );
  });
  for (const testCase of cases) {
    it(`${testCase.operation}: ${testCase.name}`, async () => {
      const { expected, actual } = await runCase(workflowInterpreter, testCase);
      expect(actual).toEqual(expected);
    });
  }
});
