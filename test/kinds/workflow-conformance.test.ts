// Karmada's own Workflow cases (conformance-corpus.ts), through the same dispatch the server uses and
// compared the way Karmada's harness compares. Cases in conformance-differences.yaml must still differ
// (if one starts passing, the list and the README are stale); every other case must pass.
// Our own testdata/ cases run in test/testdata.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createRegistry } from '../../src/interpreter/setup.ts';
import { compareResults, loadTestCases, type TestCase } from '../../src/testcases/cases.ts';
import { findTestdataFiles, runCaseInProcess } from '../../src/testcases/runner.ts';
import { kindTestdata, MISSING_CORPUS } from './conformance-corpus.ts';

const conformanceDir = kindTestdata('argoproj.io/v1alpha1/Workflow');
const kindDir = fileURLToPath(new URL('../../interpreters/argoproj.io/v1alpha1/Workflow', import.meta.url));

/** Karmada case name → why we answer differently (conformance-differences.yaml, explained in README.md). */
const DELIBERATE_DIFFERENCES = new Map(
  (parse(readFileSync(join(kindDir, 'conformance-differences.yaml'), 'utf8')) as Array<{ name: string; reason: string }>).map((d) => [d.name, d.reason]),
);

async function casesIn(dir: string): Promise<TestCase[]> {
  return (await Promise.all((await findTestdataFiles([dir])).map((file) => loadTestCases(file)))).flat();
}

const loaded = await createRegistry();
afterAll(() => loaded.close());
// Without Karmada's cases the tests below are skipped, and a skipped test says why.
const haveConformance = existsSync(conformanceDir);
const conformanceCases = haveConformance ? await casesIn(conformanceDir) : [];

describe('Workflow: Karmada conformance corpus', () => {
  it.skipIf(haveConformance)(`skipped: ${MISSING_CORPUS}`, () => {});
});

describe.skipIf(!haveConformance)('Workflow: Karmada conformance cases', () => {
  it('loads every Karmada case', () => {
    expect(conformanceCases.length).toBeGreaterThanOrEqual(11);
  });

  it.each(conformanceCases.map((tc) => [`${tc.operation}: ${tc.name}`, tc] as const))('%s', async (_title, tc) => {
    const results = await runCaseInProcess(loaded.registry, tc);
    const problems = typeof results === 'string' ? [results] : compareResults(tc.output, results);
    const reason = DELIBERATE_DIFFERENCES.get(tc.name);
    if (reason) expect(problems, `listed as a deliberate difference (${reason}) but passes`).not.toEqual([]);
    else expect(problems).toEqual([]);
  });

  it('names only existing cases as deliberate differences, each explained in the README', () => {
    const names = new Set(conformanceCases.map((tc) => tc.name));
    const readme = readFileSync(join(kindDir, 'README.md'), 'utf8');
    expect(DELIBERATE_DIFFERENCES.size).toBeGreaterThan(0);
    for (const name of DELIBERATE_DIFFERENCES.keys()) {
      expect(names.has(name), name).toBe(true);
      expect(readme, name).toContain(name);
    }
  });
});

describe('Workflow: testdata', () => {
  it('has cases for every operation the module implements', async () => {
    const operations = new Set((await casesIn(join(kindDir, 'testdata'))).map((tc) => String(tc.operation).toLowerCase()));
    expect([...operations].sort()).toEqual([
      'aggregatestatus',
      'interpretdependency',
      'interprethealth',
      'interpretreplica',
      'interpretstatus',
      'retain',
      'revisereplica',
    ]);
  });
});
