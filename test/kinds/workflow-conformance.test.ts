// Karmada's own Workflow cases (../shared/conformance) and ours (the kind's testdata/), run directly
// against the module. Cases listed in DELIBERATE_DIFFERENCES must still differ: if one starts passing,
// the README's list of differences is stale.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workflowInterpreter } from '../../interpreters/argoproj.io/v1alpha1/Workflow/index.js';
import { loadCases, runCase } from './workflow-cases.js';

const conformanceDir = fileURLToPath(new URL('../../../shared/conformance/karmada/argoproj.io/v1alpha1/Workflow/testdata', import.meta.url));
const testdataDir = fileURLToPath(new URL('../../interpreters/argoproj.io/v1alpha1/Workflow/testdata', import.meta.url));

/** Karmada case name → why we answer differently (also in the kind's README.md). */
const DELIBERATE_DIFFERENCES: Record<string, string> = {
  'Workflow with parallelism set to 2': 'replicas is 1: parallelism is the fan-out inside one workflow, not a count to divide',
  'Workflow revise replica should update parallelism': 'ReviseReplica is the identity: writing a share into parallelism serializes or changes the workflow',
  'Workflow retain should preserve observed suspend': 'an explicit suspend in the template wins, so the control plane can resume a member-side suspend',
};

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
  it('names only existing cases as deliberate differences', () => {
    const names = new Set(cases.map((testCase) => testCase.name));
    for (const name of Object.keys(DELIBERATE_DIFFERENCES)) expect(names.has(name), name).toBe(true);
  });
});

describe('Workflow: testdata', () => {
  const cases = loadCases(testdataDir);
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
