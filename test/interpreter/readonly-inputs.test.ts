// The dispatcher passes read-only inputs to modules without copying them (src/interpreter/dispatch.ts):
// the object of read-only operations, Retain's observed object and AggregateStatus items are the
// request's own data. Every testdata case of every built-in interpreter (TypeScript and Lua) runs here
// on deep-frozen inputs: a module that changed one would throw (ES modules are strict), and the
// dispatcher's private copy must leave the frozen request object untouched for the mutating operations
// (AggregateStatus gets its own status only: a module changing anything else in the object throws here).
import { afterAll, describe, expect, it } from 'vitest';
import { interpret } from '../../src/interpreter/dispatch.ts';
import { createRegistry } from '../../src/interpreter/setup.ts';
import { caseInput, compareResults, loadTestCases, resultsOf } from '../../src/testcases/cases.ts';
import { findTestdataFiles } from '../../src/testcases/runner.ts';

const loaded = await createRegistry();
afterAll(() => loaded.close());
const files = await findTestdataFiles(['interpreters']);

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

describe('modules never change the inputs they share with the dispatcher', () => {
  it('freezing really makes a change throw here', () => {
    const frozen = deepFreeze({ status: { replicas: 1 } });
    expect(() => {
      (frozen.status as { replicas: number }).replicas = 2;
    }).toThrow(TypeError);
  });

  for (const file of files) {
    describe(file, async () => {
      const cases = await loadTestCases(file);
      it.each(cases.map((tc) => [tc.name, tc] as const))('%s', async (_name, tc) => {
        const input = caseInput(tc);
        if (typeof input === 'string') return;
        const before = JSON.stringify(input);
        deepFreeze(input);
        const outcome = await interpret(loaded.registry, input);
        if (!outcome.ok) expect(outcome.code, outcome.message).not.toBe(500);
        else expect(compareResults(tc.output ?? {}, resultsOf(outcome.result))).toEqual([]);
        expect(JSON.stringify(input)).toBe(before);
      });
    });
  }
});
