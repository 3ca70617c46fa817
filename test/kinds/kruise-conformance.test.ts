// Karmada's own CloneSet / Advanced StatefulSet cases (../shared/conformance) against our modules, and
// our testdata. Every Karmada case passes except the deliberate differences listed below; each of those
// (conformance-differences.yaml next to the module) must really differ, so the list cannot go stale,
// and must be named in the kind's README.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cloneSet } from '../../interpreters/apps.kruise.io/v1alpha1/CloneSet/index.js';
import { advancedStatefulSet } from '../../interpreters/apps.kruise.io/v1beta1/StatefulSet/index.js';
import type { KindInterpreter } from '../../src/interpreter/types.js';
import { loadCases, runCase } from './kruise-cases.js';

const conformance = (path: string) => fileURLToPath(new URL(`../../../shared/conformance/karmada/apps.kruise.io/${path}/testdata`, import.meta.url));
const ours = (path: string) => fileURLToPath(new URL(`../../interpreters/apps.kruise.io/${path}/testdata`, import.meta.url));
const readme = (path: string) => readFileSync(new URL(`../../interpreters/apps.kruise.io/${path}/README.md`, import.meta.url), 'utf8');

// The same list `npm run conformance` reads: one place to declare a deliberate difference.
const differencesOf = (path: string): string[] =>
  (parse(readFileSync(new URL(`../../interpreters/apps.kruise.io/${path}/conformance-differences.yaml`, import.meta.url), 'utf8')) as Array<{ name: string }>).map(
    (d) => d.name,
  );

const kinds: Array<{ path: string; module: KindInterpreter; differences: string[] }> = [
  { path: 'v1alpha1/CloneSet', module: cloneSet, differences: differencesOf('v1alpha1/CloneSet') },
  { path: 'v1beta1/StatefulSet', module: advancedStatefulSet, differences: differencesOf('v1beta1/StatefulSet') },
];

for (const { path, module, differences } of kinds) {
  describe(`Karmada conformance: ${path}`, () => {
    const cases = loadCases(conformance(path));
    it.skipIf(cases.length === 0)('has Karmada cases to run', () => {
      expect(cases.length).toBeGreaterThan(0);
      for (const name of differences) expect(cases.map((c) => c.name)).toContain(name);
    });
    for (const c of cases) {
      if (differences.includes(c.name)) {
        it(`${c.file}: ${c.name} differs deliberately and the README says why`, async () => {
          const { expected, actual } = await runCase(module, c);
          expect(actual).not.toEqual(expected);
          expect(readme(path)).toContain(c.name);
        });
      } else {
        it(`${c.file}: ${c.name}`, async () => {
          const { expected, actual } = await runCase(module, c);
          expect(actual).toEqual(expected);
        });
      }
    }
  });

  describe(`our testdata: ${path}`, () => {
    const cases = loadCases(ours(path));
    it('exists', () => expect(cases.length).toBeGreaterThan(0));
    for (const c of cases) {
      it(`${c.file}: ${c.name}`, async () => {
        const { expected, actual } = await runCase(module, c);
        expect(actual).toEqual(expected);
      });
    }
  });
}
