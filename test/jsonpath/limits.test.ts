// The caps of src/jsonpath/limits.ts (client-go has none): work and output of one evaluation are
// bounded by construction, and past a cap the template fails with a JsonPathExecError, like a missing key.

import { describe, expect, it } from 'vitest';
import {
  compileJsonPath,
  evaluateJsonPath,
  executeJsonPath,
  JsonPathBudget,
  JsonPathExecError,
  JsonPathLimitError,
  JsonPathParseError,
  MAX_JSONPATH_MESSAGE_VALUE_CHARS,
  MAX_JSONPATH_OUTPUT_CHARS,
  MAX_JSONPATH_TEMPLATE_CHARS,
  MAX_JSONPATH_VALUES,
} from '../../src/jsonpath/index.ts';

/** `{a: {a: … {b: 0} …, b: depth-1}, b: depth}`: the status of issue 19. */
function chain(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { b: 0 };
  for (let i = 1; i <= depth; i++) value = { a: value, b: i };
  return value;
}

function failure(template: string, data: unknown): Error {
  try {
    executeJsonPath(template, data);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`${template} did not fail`);
}

describe('values cap (MAX_JSONPATH_VALUES)', () => {
  it('stops {..a..a..a} over a 300-level chain (cubic in the depth) with a limit error', () => {
    const error = failure('{..a..a..a}', chain(300));
    expect(error).toBeInstanceOf(JsonPathLimitError);
    expect(error).toBeInstanceOf(JsonPathExecError);
    expect(error.message).toBe(`evaluation stopped after ${MAX_JSONPATH_VALUES} values (a limit of this server; the template visits too much of the data)`);
    // a cap says nothing about Go's map order
    expect((error as JsonPathLimitError).mapOrderDependent).toBe(false);
  });

  it('counts the bytes `*` makes of a string', () => {
    expect(executeJsonPath('{.s.*}', { s: 'ab' })).toBe('97 98');
    expect(failure('{.s.*}', { s: 'x'.repeat(MAX_JSONPATH_VALUES + 1) })).toBeInstanceOf(JsonPathLimitError);
  });

  it('counts range iterations and array slices', () => {
    expect(failure('{range ..}{range ..}{end}{end}', chain(300))).toBeInstanceOf(JsonPathLimitError);
    const items = Array.from({ length: 1000 }, (_, i) => i);
    // 200 copies of a 1000-element slice: 200,000 values
    const manyRefs = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, items]));
    expect(failure('{.*[0:1000:1]}', manyRefs)).toBeInstanceOf(JsonPathLimitError);
    expect(executeJsonPath('{.*[999]}', { a: items, b: items })).toBe('999 999');
    expect(executeJsonPath('{.a[0:10:3]}', { a: items })).toBe('0 3 6 9');
    expect(executeJsonPath('{.a[0:10:99999999999999999]}', { a: items })).toBe('0');
  });

  it('normal templates over the same data still work', () => {
    const data = chain(300);
    expect(executeJsonPath('{.a.a.b}', data)).toBe('298');
    const bs = executeJsonPath('{..b}', chain(50));
    expect(bs).toBe(Array.from({ length: 51 }, (_, i) => 50 - i).join(' '));
  });

  it('recursive descent walks deep data without exhausting the call stack, in client-go order', () => {
    let deep: Record<string, unknown> = { c: 'bottom' };
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    expect(executeJsonPath('{..c}', deep)).toBe('bottom');
    expect(executeJsonPath('{..x}', { a: { x: 1, b: { x: 2 } }, c: [{ x: 3 }], x: 0 })).toBe('0 1 2 3');
  });

  it('a budget shared by several evaluations bounds their total', () => {
    const shared = new JsonPathBudget(100);
    const data = { items: Array.from({ length: 40 }, (_, i) => i) };
    expect(evaluateJsonPath('{.items[*]}', data, { sharedBudget: shared }).text).toHaveLength(109);
    expect(evaluateJsonPath('{.items[*]}', data, { sharedBudget: shared }).text).toHaveLength(109);
    expect(() => evaluateJsonPath('{.items[*]}', data, { sharedBudget: shared })).toThrow(JsonPathLimitError);
  });
});

describe('output cap (MAX_JSONPATH_OUTPUT_CHARS)', () => {
  it('{..} over a 100-level chain (quadratic output) fails instead of printing megabytes', () => {
    const error = failure('{..}', chain(100));
    expect(error).toBeInstanceOf(JsonPathLimitError);
    expect(error.message).toBe(`the result is longer than ${MAX_JSONPATH_OUTPUT_CHARS} characters (a limit of this server; a label value has at most 63)`);
  });

  it('allows exactly the cap', () => {
    expect(executeJsonPath('{.s}', { s: 'x'.repeat(MAX_JSONPATH_OUTPUT_CHARS) })).toHaveLength(MAX_JSONPATH_OUTPUT_CHARS);
    expect(failure('{.s}', { s: 'x'.repeat(MAX_JSONPATH_OUTPUT_CHARS + 1) })).toBeInstanceOf(JsonPathLimitError);
    expect(failure('{.s} {.s}', { s: 'x'.repeat(MAX_JSONPATH_OUTPUT_CHARS / 2) })).toBeInstanceOf(JsonPathLimitError);
    expect(failure('{.m}', { m: { big: 'y'.repeat(1_000_000) } })).toBeInstanceOf(JsonPathLimitError);
  });

  it('a value quoted in an error message is cut', () => {
    const error = failure('{.m[?(@.x)]}', { m: { text: 'z'.repeat(100_000) } });
    expect(error).not.toBeInstanceOf(JsonPathLimitError);
    expect(error.message).toMatch(/^map\[text:z+\.\.\. is not array or slice and cannot be filtered$/);
    expect(error.message.length).toBeLessThan(MAX_JSONPATH_MESSAGE_VALUE_CHARS + 60);
  });
});

describe('template cap (MAX_JSONPATH_TEMPLATE_CHARS)', () => {
  it('refuses a longer template as a parse error', () => {
    const longest = `{.a}${' '.repeat(MAX_JSONPATH_TEMPLATE_CHARS - 4)}`;
    expect(compileJsonPath(longest).template).toBe(longest);
    expect(() => compileJsonPath(`${longest} `)).toThrow(JsonPathParseError);
    expect(() => compileJsonPath(`${longest} `)).toThrow(`the template has ${MAX_JSONPATH_TEMPLATE_CHARS + 1} characters`);
  });
});
