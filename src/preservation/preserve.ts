// One entry point for the `preserve` CLI and `POST /preserve`: reflect the observed object's status
// with our InterpretStatus, then evaluate the rules against it as Karmada would.

import type { JsonObject, KObject, StatePreservationRule } from '../interpreter/types.ts';
import { evaluatePreservation, type PreservationResult } from './evaluate.ts';
import { PreservationInputError, rulesFromPolicy, validateRules } from './policy.ts';

export interface PreserveInput {
  /** A PropagationPolicy / ClusterPropagationPolicy, a list of rules or {rules: [...]}. */
  policy?: unknown;
  /** A list of {aliasLabelName, jsonPath}. */
  rules?: unknown;
  /** The workload as it is in the member cluster (what InterpretStatus receives). */
  observedObject: KObject;
}

export type ReflectStatus = (obj: KObject) => Promise<JsonObject>;
/** Evaluates the rules against a reflected status: in-process, or where runaway JSONPath can be stopped (the server). */
export type EvaluateRules = (rules: StatePreservationRule[], status: unknown) => Promise<PreservationResult> | PreservationResult;

/** Validates the input; throws PreservationInputError with a message fit for a 400 answer. */
export function rulesFromInput(input: { policy?: unknown; rules?: unknown }): StatePreservationRule[] {
  const hasPolicy = input.policy !== undefined && input.policy !== null;
  const hasRules = input.rules !== undefined && input.rules !== null;
  if (hasPolicy === hasRules) throw new PreservationInputError('give exactly one of "policy" or "rules"');
  return hasPolicy ? rulesFromPolicy(input.policy) : validateRules(input.rules, 'rules');
}

function checkObservedObject(value: unknown): asserts value is KObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PreservationInputError('"observedObject" must be a Kubernetes object');
  }
  const obj = value as KObject;
  if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string' || obj.apiVersion === '' || obj.kind === '') {
    throw new PreservationInputError('"observedObject" needs apiVersion and kind');
  }
}

export async function preserveForObject(
  input: PreserveInput,
  reflect: ReflectStatus,
  evaluate: EvaluateRules = evaluatePreservation,
): Promise<PreservationResult> {
  const rules = rulesFromInput(input);
  checkObservedObject(input.observedObject);
  const status = await reflect(input.observedObject);
  return evaluate(rules, status);
}
