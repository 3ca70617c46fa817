// Bounds on one JSONPath evaluation. client-go has none: `{..a..a..a}` over a status nested a few
// hundred levels deep grows its intermediate results with the cube of the depth, and `{..}` prints every
// subtree of the status in full. These caps make the work and the output of an evaluation proportional
// to fixed numbers, whatever the template and the data; past a cap the template fails with a
// JsonPathLimitError, a JsonPathExecError like "x is not found", so callers report it the same way.

import { JsonPathExecError } from './errors.ts';

/**
 * Values one evaluation may produce, counted over all of its steps: every field, element, map value,
 * string byte and recursive-descent node a step yields, and every item a filter tests, costs one.
 * `{..}` over a status of a few thousand nodes uses a few thousand.
 */
export const MAX_JSONPATH_VALUES = 100_000;

/**
 * Characters one evaluation may write. The result becomes a label value, which Kubernetes allows at
 * most 63 characters; the margin leaves room to see what a mistaken template selects.
 */
export const MAX_JSONPATH_OUTPUT_CHARS = 4096;

/** Characters of a template. Real templates are a few dozen; parsing nested filters re-reads the text. */
export const MAX_JSONPATH_TEMPLATE_CHARS = 4096;

/** Characters of a data value quoted in an error message (client-go prints the whole value). */
export const MAX_JSONPATH_MESSAGE_VALUE_CHARS = 256;

/** A cap of this server was reached; the message names it. */
export class JsonPathLimitError extends JsonPathExecError {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPathLimitError';
  }
}

/**
 * The values still allowed. One budget can be shared by several evaluations (every rule of one
 * preservation request), so the total stays bounded too.
 */
export class JsonPathBudget {
  private remaining: number;
  private readonly limit: number;

  constructor(limit: number = MAX_JSONPATH_VALUES) {
    this.limit = limit;
    this.remaining = limit;
  }

  /** Takes `count` values or throws JsonPathLimitError. */
  take(count: number): void {
    if (count <= this.remaining) {
      this.remaining -= count;
      return;
    }
    this.remaining = 0;
    throw new JsonPathLimitError(`evaluation stopped after ${this.limit} values (a limit of this server; the template visits too much of the data)`);
  }
}

export function outputLimitError(limit: number): JsonPathLimitError {
  return new JsonPathLimitError(`the result is longer than ${limit} characters (a limit of this server; a label value has at most 63)`);
}
