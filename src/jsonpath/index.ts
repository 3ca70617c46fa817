// client-go compatible JSONPath templates (k8s.io/client-go/util/jsonpath), as Karmada evaluates
// state-preservation rules: `jsonpath.New(p).AllowMissingKeys(false)`, Parse, Execute.

import { evaluate, type EvaluationResult } from './evaluator.ts';
import type { ListNode } from './nodes.ts';
import { parseTemplate } from './parser.ts';

export { JsonPathExecError, JsonPathParseError } from './errors.ts';
export { formatGoFloat, marshalGoJson } from './goformat.ts';
export type { EvaluationResult } from './evaluator.ts';

export interface CompiledTemplate {
  readonly template: string;
  readonly root: ListNode;
}

export interface JsonPathOptions {
  /** client-go's AllowMissingKeys; Karmada uses false (a missing key is an error). Default false. */
  allowMissingKeys?: boolean;
}

/** Parses a template; throws JsonPathParseError with client-go's message. */
export function compileJsonPath(template: string): CompiledTemplate {
  return { template, root: parseTemplate(template) };
}

/** Executes a template on JSON data and returns what client-go writes; throws JsonPathExecError. */
export function executeJsonPath(template: string | CompiledTemplate, data: unknown, opts: JsonPathOptions = {}): string {
  return evaluateJsonPath(template, data, opts).text;
}

/** executeJsonPath plus facts about the evaluation (map-order dependence). */
export function evaluateJsonPath(
  template: string | CompiledTemplate,
  data: unknown,
  opts: JsonPathOptions = {},
): EvaluationResult {
  const compiled = typeof template === 'string' ? compileJsonPath(template) : template;
  return evaluate(compiled.root, data, opts.allowMissingKeys ?? false);
}
