// The dependencies of several customizations of one kind are merged into one answer; the answer is
// bounded as a whole (each script's share is bounded in its worker: test/isolation/untrusted-work.test.ts).
import { describe, expect, it } from 'vitest';
import { createLuaInterpreter } from '../../src/customizations/interpreter.ts';
import type { MergedTarget } from '../../src/customizations/merge.ts';
import { MAX_DEPENDENCIES, MAX_DEPENDENCY_BYTES } from '../../src/interpreter/answer-limits.ts';
import { InterpreterError } from '../../src/interpreter/types.ts';
import { FakeRuntime } from './fake-runtime.ts';

const refs = (count: number, name = (i: number) => `c${i}`) =>
  Array.from({ length: count }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: name(i) }));

function target(count: number): MergedTarget {
  const dependencies = Array.from({ length: count }, (_, i) => ({ script: `script ${i}`, customization: `ric-${i}`, file: `ric-${i}.yaml` }));
  return { apiVersion: 'example.io/v1', kind: 'Widget', rules: {}, dependencies, customizations: dependencies.map((d) => d.customization), files: [] };
}

describe('merged dependencies', () => {
  const object = { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' } };

  it('answers the union within the bounds', async () => {
    const runtime = new FakeRuntime({ 'script 0': refs(3), 'script 1': refs(2, (i) => `d${i}`) });
    expect(await createLuaInterpreter(target(2), runtime).getDependencies!(object)).toHaveLength(5);
  });

  it('refuses an answer past the count bound, naming it and the customizations merged, without running the rest', async () => {
    const share = Math.ceil(MAX_DEPENDENCIES / 3);
    const runtime = new FakeRuntime(Object.fromEntries([0, 1, 2, 3].map((i) => [`script ${i}`, refs(share, (j) => `s${i}-${j}`)])));
    const error = await Promise.resolve(createLuaInterpreter(target(4), runtime).getDependencies!(object)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterpreterError);
    expect((error as InterpreterError).code).toBe(500);
    expect((error as InterpreterError).message).toBe(
      `customizations ric-0, ric-1, ric-2: GetDependencies: the merged answer has ${3 * share} dependencies, over the limit of ${MAX_DEPENDENCIES} per answer`,
    );
    expect(runtime.calls).toHaveLength(3);
  });

  it('refuses an answer past the bytes bound', async () => {
    const long = 'n'.repeat(Math.ceil(MAX_DEPENDENCY_BYTES / 100));
    const runtime = new FakeRuntime({ 'script 0': refs(60, (i) => `${i}${long}`), 'script 1': refs(60, (i) => `x${i}${long}`) });
    const error = (await Promise.resolve(createLuaInterpreter(target(2), runtime).getDependencies!(object)).catch((e: unknown) => e)) as InterpreterError;
    expect(error.message).toMatch(
      new RegExp(
        `^customizations ric-0, ric-1: GetDependencies: the merged answer has dependencies of \\d+ bytes of JSON, over the limit of ${MAX_DEPENDENCY_BYTES} per answer$`,
      ),
    );
  });
});
