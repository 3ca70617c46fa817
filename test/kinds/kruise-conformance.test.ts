// Karmada's own CloneSet / Advanced StatefulSet cases (conformance-corpus.ts) against our modules, through
// the shared dispatch and Karmada-style comparison. Every Karmada case passes except the deliberate
// differences in conformance-differences.yaml next to each module; each of those must really differ (so
// the list cannot go stale) and must be named in the kind's README. Our own testdata runs in
// test/testdata.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cloneSet } from '../../interpreters/apps.kruise.io/v1alpha1/CloneSet/index.ts';
import { advancedStatefulSet } from '../../interpreters/apps.kruise.io/v1beta1/StatefulSet/index.ts';
import { Registry } from '../../src/interpreter/registry.ts';
import { compareResults, loadTestCases } from '../../src/testcases/cases.ts';
import { findTestdataFiles, runCaseInProcess } from '../../src/testcases/runner.ts';
import { haveConformanceCorpus, kindTestdata, MISSING_CORPUS } from './conformance-corpus.ts';

const registry = new Registry({ 'builtin-ts': [cloneSet, advancedStatefulSet] });
const readme = (path: string) => readFileSync(new URL(`../../interpreters/apps.kruise.io/${path}/README.md`, import.meta.url), 'utf8');

// The same list `npm run conformance` reads: one place to declare a deliberate difference.
const differencesOf = (path: string): string[] =>
  (
    parse(readFileSync(new URL(`../../interpreters/apps.kruise.io/${path}/conformance-differences.yaml`, import.meta.url), 'utf8')) as Array<{ name: string }>
  ).map((d) => d.name);

async function casesOf(path: string) {
  const dir = kindTestdata(`apps.kruise.io/${path}`);
  const files = await findTestdataFiles([dir]).catch(() => [] as string[]);
  return (await Promise.all(files.map((f) => loadTestCases(f)))).flat();
}

for (const path of ['v1alpha1/CloneSet', 'v1beta1/StatefulSet']) {
  const differences = differencesOf(path);
  const cases = await casesOf(path);
  describe(`Karmada conformance: ${path}`, () => {
    it.skipIf(haveConformanceCorpus)(`skipped: ${MISSING_CORPUS}`, () => {});
    it.skipIf(cases.length === 0)('has Karmada cases, and every listed difference names one of them', () => {
      for (const name of differences) expect(cases.map((c) => c.name)).toContain(name);
    });
    for (const tc of cases) {
      const deliberate = differences.includes(tc.name);
      it(deliberate ? `${tc.name} differs deliberately and the README says why` : tc.name, async () => {
        const results = await runCaseInProcess(registry, tc);
        expect(typeof results).not.toBe('string');
        const problems = compareResults(tc.output, results as Record<string, unknown>);
        if (deliberate) {
          expect(problems).not.toEqual([]);
          expect(readme(path)).toContain(tc.name);
        } else expect(problems).toEqual([]);
      });
    }
  });
}
