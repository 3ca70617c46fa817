// client-go compatible JSONPath templates (k8s.io/client-go/util/jsonpath), as Karmada evaluates
// state-preservation rules: `jsonpath.New(p).AllowMissingKeys(false)`, Parse, Execute.

import { JsonPathParseError } from './errors.ts';
import { evaluate, type EvaluationResult } from './evaluator.ts';
import { JsonPathBudget, MAX_JSONPATH_TEMPLATE_CHARS } from './limits.ts';
import type { ListNode } from './nodes.ts';
import { parseTemplate } from './parser.ts';

export { JsonPathExecError, JsonPathParseError } from './errors.ts';
export {
  JsonPathBudget,
  JsonPathLimitError,
  MAX_JSONPATH_MESSAGE_VALUE_CHARS,
  MAX_JSONPATH_OUTPUT_CHARS,
  MAX_JSONPATH_TEMPLATE_CHARS,
  MAX_JSONPATH_VALUES,
} from './limits.ts';
export type { EvaluationResult } from './evaluator.ts';

export interface CompiledTemplate {
  readonly template: string;
  readonly root: ListNode;
}

export interface JsonPathOptions {
  /** client-go's AllowMissingKeys; Karmada uses false (a missing key is an error). Default false. */
  allowMissingKeys?: boolean;
  /**
   * A budget shared with other evaluations (one request's rules), drawn from besides this evaluation's
   * own MAX_JSONPATH_VALUES.
   */
  sharedBudget?: JsonPathBudget;
}

/**
 * Parses a template; throws JsonPathParseError with client-go's message, or for a template longer than
 * MAX_JSONPATH_TEMPLATE_CHARS.
 */
export function compileJsonPath(template: string): CompiledTemplate {
  if (template.length > MAX_JSONPATH_TEMPLATE_CHARS) {
    throw new JsonPathParseError(`the template has ${template.length} characters, more than ${MAX_JSONPATH_TEMPLATE_CHARS} (a limit of this server)`);
  }
  return { template, root: parseTemplate(template) };
}

/**
 * Executes a template on JSON data and returns what client-go writes; throws JsonPathExecError, or its
 * subclass JsonPathLimitError past MAX_JSONPATH_VALUES or MAX_JSONPATH_OUTPUT_CHARS.
 */
export function executeJsonPath(template: string | CompiledTemplate, data: unknown, opts: JsonPathOptions = {}): string {
  return evaluateJsonPath(template, data, opts).text;
}

/** executeJsonPath plus facts about the evaluation (map-order dependence). */
export function evaluateJsonPath(template: string | CompiledTemplate, data: unknown, opts: JsonPathOptions = {}): EvaluationResult {
  const compiled = typeof template === 'string' ? compileJsonPath(template) : template;
  return evaluate(compiled.root, data, opts.allowMissingKeys ?? false, {
    budgets: opts.sharedBudget ? [opts.sharedBudget] : [],
  });
}
