// How a case's output is judged: `test` refuses a case that expects nothing; `conformance` judges Karmada's
// own corpus as Karmada's harness does (pkg/resourceinterpreter/default/thirdparty/thirdparty_test.go
// compares only the keys `output` lists: `output: {}` asks only that the call succeed, as in
// apps.kruise.io/v1alpha1/BroadcastJob/testdata/aggregatestatus-test.yaml "BroadcastJob with no status items").
import { describe, expect, it } from 'vitest';
import { compareResults } from '../../src/testcases/cases.ts';

describe('compareResults', () => {
  it('refuses an empty output for our own cases', () => {
    expect(compareResults({}, { replica: 3 })).toEqual([expect.stringContaining('would compare nothing')]);
  });

  it("passes an empty output as Karmada's harness does, and still compares what output lists", () => {
    expect(compareResults({}, { replica: 3 }, { asKarmada: true })).toEqual([]);
    expect(compareResults({ replica: 2 }, { replica: 3 }, { asKarmada: true })).toEqual([expect.stringContaining('replica differs')]);
  });

  it('refuses an output that is not a map either way', () => {
    expect(compareResults([] as unknown as Record<string, unknown>, { replica: 3 }, { asKarmada: true })).toEqual([expect.stringContaining('not a list')]);
  });
});
