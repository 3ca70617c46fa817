// Issue 7: every built-in kind recommends state-preservation rules, and they work on what Karmada
// really holds: the status our InterpretStatus reflects from each of the kind's testdata objects.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinInterpreters } from '../../interpreters/index.ts';
import { loadTestCases, type TestCase } from '../../src/testcases/cases.ts';
import type { KindInterpreter } from '../../src/interpreter/types.ts';
import { evaluatePreservation } from '../../src/preservation/index.ts';

const INTERPRETERS_DIR = join(import.meta.dirname, '../../interpreters');

async function reflectedStatuses(module: KindInterpreter): Promise<Array<{ name: string; status: unknown }>> {
  const statuses: Array<{ name: string; status: unknown }> = [];
  for (const { apiVersion, kind } of module.targets) {
    const file = join(INTERPRETERS_DIR, apiVersion, kind, 'testdata', 'interpretstatus-test.yaml');
    if (!existsSync(file)) continue;
    const cases: TestCase[] = await loadTestCases(file);
    for (const tc of cases) {
      if (String(tc.operation).toLowerCase() !== 'interpretstatus' || !tc.observedObj) continue;
      const status = await module.reflectStatus!(structuredClone(tc.observedObj));
      statuses.push({ name: `${apiVersion} ${kind}: ${tc.name}`, status });
    }
  }
  return statuses;
}

describe.each(builtinInterpreters.map((module) => [module.name ?? module.targets[0]!.kind, module] as const))(
  'built-in preservation rules: %s',
  (_name, module) => {
    it('declares at least one rule and reflects status', () => {
      expect(module.preservation?.length ?? 0).toBeGreaterThan(0);
      expect(typeof module.reflectStatus).toBe('function');
    });

    it('gives valid label values and names wherever a rule evaluates, and every rule evaluates somewhere', async () => {
      const rules = module.preservation ?? [];
      const statuses = await reflectedStatuses(module);
      expect(statuses.length).toBeGreaterThan(0);
      const succeeded = new Set<string>();
      for (const { name, status } of statuses) {
        const result = evaluatePreservation(rules, status);
        expect({ case: name, warnings: result.warnings }).toEqual({ case: name, warnings: [] });
        for (const alias of Object.keys(result.labels)) succeeded.add(alias);
        // A module serving one API version must have rules that hold for every status it reflects;
        // modules serving several versions (XlineCluster) may keep a rule per version.
        if (module.targets.length === 1) expect({ case: name, errors: result.errors }).toEqual({ case: name, errors: [] });
      }
      expect([...succeeded].sort()).toEqual(rules.map((rule) => rule.aliasLabelName).sort());
    });
  },
);
