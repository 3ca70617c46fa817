// Lazy argument conversion (src/lua/karmada/lazy.ts) against the eager reference (pushJson): every Lua script we
// have (interpreters/**/customizations.yaml, bench/customizations), on every input we have (all
// Karmada-format testdata cases under interpreters/ and test/, every recorded request under
// test/fixtures, the bench's 50-cluster AggregateStatus), must give the same result, error and prints.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { caseInput, loadTestCases } from '../../src/testcases/cases.ts';
import { findTestdataFiles } from '../../src/testcases/runner.ts';
import { parseCustomizationFile } from '../../src/customizations/parse.ts';
import type { CustomizationField } from '../../src/lua/operations.ts';
import { LazyEagerPair, type Input } from './lazy-compare.ts';
import { largeAggregateCase } from '../../bench/cases.ts';

const pair = new LazyEagerPair();
afterAll(() => pair.close());

// --- the corpus -------------------------------------------------------------------------------------

function walk(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path, keep) : keep(path) ? [path] : [];
    });
}

const scripts: Array<{ label: string; field: CustomizationField; script: string }> = [];
for (const file of [...walk('interpreters', (p) => p.endsWith('customizations.yaml')), ...walk('bench/customizations', (p) => p.endsWith('.yaml'))]) {
  for (const doc of parseCustomizationFile(readFileSync(file, 'utf8'), file)) {
    for (const [field, script] of Object.entries(doc.customization?.scripts ?? {})) {
      if (script) scripts.push({ label: `${file} ${field}`, field: field as CustomizationField, script });
    }
  }
}

const inputs: Input[] = [];
for (const file of await findTestdataFiles(['interpreters', 'test'])) {
  for (const tc of await loadTestCases(file)) {
    const input = caseInput(tc);
    if (typeof input === 'string') continue;
    inputs.push({ label: `${file} ${tc.name}`, object: input.object, observed: input.observedObject, replicas: input.replicas, items: input.aggregatedStatus });
  }
}
for (const file of walk('test/fixtures', (p) => p.endsWith('.json'))) {
  const request = JSON.parse(readFileSync(file, 'utf8')).request?.request;
  if (!request?.object) continue;
  inputs.push({
    label: file,
    object: request.object,
    observed: request.observedObject,
    replicas: request.replicas ?? 0,
    items: request.aggregatedStatus ?? undefined,
  });
}
const large = JSON.parse(largeAggregateCase().body).request;
inputs.push({ label: 'bench 50-cluster AggregateStatus', object: large.object, replicas: 0, items: large.aggregatedStatus });

describe('lazy conversion gives what eager conversion gives', () => {
  it('has a corpus', () => {
    expect(scripts.length).toBeGreaterThanOrEqual(15);
    expect(inputs.length).toBeGreaterThanOrEqual(80);
  });

  // Every script on every input (other kinds' inputs too: they exercise the scripts' error paths).
  for (const { label, field, script } of scripts) {
    it(label, async () => {
      let succeeded = 0;
      for (const input of inputs) {
        try {
          if ((await pair.same(field, script, input)).ok) succeeded++;
        } catch (err) {
          throw new Error(`${input.label}: ${(err as Error).message}`, { cause: err });
        }
      }
      expect(succeeded).toBeGreaterThan(0);
    });
  }
});
