// The Lua customizations shipped under interpreters/ (examples of our own), loaded by the real loader on
// the real fengari runtime, each compiled and run against the Karmada-format cases in its testdata/
// through the server's dispatch, and every rule it defines covered by at least one case.
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Registry } from '../../src/interpreter/registry.ts';
import { caseOperation, compareResults, loadTestCases, type TestCase } from '../../src/testcases/cases.ts';
import { findTestdataFiles, runCaseInProcess } from '../../src/testcases/runner.ts';
import { findBuiltinCustomizationFiles } from '../../src/customizations/files.ts';
import { loadBuiltinCustomizations } from '../../src/customizations/loader.ts';
import { LuaRuntime } from '../../src/lua/runtime.ts';

const runtime = new LuaRuntime({ poolSize: 2 });
afterAll(() => runtime.close());
const loaded = await loadBuiltinCustomizations({ runtime });
const registry = new Registry({ 'builtin-lua': loaded.interpreters });

describe('built-in Lua customizations', () => {
  it('load without errors or shadowed scripts', () => {
    expect(loaded.errors).toEqual([]);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.interpreters.length).toBeGreaterThanOrEqual(2);
  });

  for (const file of findBuiltinCustomizationFiles()) {
    const kindDir = dirname(file);
    describe(kindDir.slice(kindDir.indexOf('interpreters')), async () => {
      const caseFiles = await findTestdataFiles([join(kindDir, 'testdata')]);
      const cases: TestCase[] = (await Promise.all(caseFiles.map((f) => loadTestCases(f)))).flat();
      const served = loaded.interpreters.filter((i) => i.files.includes(file));

      it('has a test case for every rule it defines', () => {
        const tested = new Set(cases.map((tc) => caseOperation(tc)));
        const defined = served.flatMap((i) => i.operations);
        expect(defined.length).toBeGreaterThan(0);
        expect(defined.filter((op) => !tested.has(op))).toEqual([]);
      });

      it.each(cases.map((tc) => [`${caseOperation(tc)}: ${tc.name}`, tc] as const))('%s', async (_name, tc) => {
        const results = await runCaseInProcess(registry, tc);
        expect(typeof results === 'string' ? [results] : compareResults(tc.output, results)).toEqual([]);
      });
    });
  }
});
