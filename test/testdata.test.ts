// Every Karmada-format case in every interpreters/**/testdata/ folder, through the same dispatch and
// precedence the server uses, compared the way Karmada's own harness compares.
import { afterAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../src/interpreter/setup.ts';
import { loadTestCases, compareResults } from '../src/testcases/cases.ts';
import { findTestdataFiles, runCaseInProcess } from '../src/testcases/runner.ts';

// The shipped examples are opt-in for the server; their own testdata runs here with them enabled.
const loaded = await createRegistry({ examples: 'all' });
afterAll(() => loaded.close());
const files = await findTestdataFiles(['interpreters']);

describe('interpreters testdata', () => {
  it('finds testdata', () => {
    expect(files.length).toBeGreaterThan(0);
  });
  for (const file of files) {
    describe(file, async () => {
      const cases = await loadTestCases(file);
      it.each(cases.map((tc) => [tc.name, tc] as const))('%s', async (_name, tc) => {
        const results = await runCaseInProcess(loaded.registry, tc);
        expect(typeof results === 'string' ? [results] : compareResults(tc.output, results)).toEqual([]);
      });
    });
  }
});
