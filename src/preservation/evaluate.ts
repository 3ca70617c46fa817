// What Karmada computes for state preservation (pkg/util/helper/failover.go BuildPreservedLabelState
// and its callers), plus the checks Karmada does not make. Karmada stops at the first failing rule and
// builds no eviction task; here every rule is evaluated and each problem is reported.

import type { StatePreservationRule } from '../interpreter/types.ts';
import { goSprintfText } from '../go/fmt.ts';
import {
  compileJsonPath,
  evaluateJsonPath,
  JsonPathBudget,
  JsonPathExecError,
  JsonPathLimitError,
  JsonPathParseError,
  MAX_JSONPATH_VALUES,
  type CompiledTemplate,
} from '../jsonpath/index.ts';
import { labelValueErrors, qualifiedNameErrors } from './labels.ts';

/**
 * Values all rules of one evaluation may produce together (each rule also stays within
 * MAX_JSONPATH_VALUES), so many expensive rules cannot add up to unbounded work.
 */
export const MAX_PRESERVATION_VALUES = 2 * MAX_JSONPATH_VALUES;

export interface RuleMessage {
  aliasLabelName: string;
  message: string;
}

export interface PreservationResult {
  /** aliasLabelName → value, as GracefulEvictionTask.preservedLabelState would hold it. */
  labels: Record<string, string>;
  /** What makes Karmada fail to build the eviction task (Karmada's own messages). */
  errors: RuleMessage[];
  /** What Karmada accepts but will go wrong later (invalid label value, order-dependent value, …). */
  warnings: RuleMessage[];
}

export interface EvaluateOptions {
  /** Used in the "status has not yet been collected" message. */
  clusterName?: string;
}

/**
 * Evaluates every rule against the status InterpretStatus reflected, as Karmada does with
 * `aggregatedStatus[cluster].status`: the status travels as JSON, is decoded by encoding/json, and each
 * jsonPath runs with AllowMissingKeys(false).
 */
export function evaluatePreservation(rules: StatePreservationRule[], reflectedStatus: unknown, opts: EvaluateOptions = {}): PreservationResult {
  const labels: Array<[string, string]> = [];
  const errors: RuleMessage[] = [];
  const warnings: RuleMessage[] = [];

  const status = asKarmadaSeesIt(reflectedStatus, opts.clusterName ?? 'unknown');
  const sharedBudget = new JsonPathBudget(MAX_PRESERVATION_VALUES);
  const seenAliases = new Set<string>();
  for (const { aliasLabelName, jsonPath } of rules) {
    const warn = (message: string) => warnings.push({ aliasLabelName, message });
    const fail = (message: string) => errors.push({ aliasLabelName, message });

    const nameProblems = qualifiedNameErrors(aliasLabelName);
    if (nameProblems.length > 0) {
      warn(`aliasLabelName ${JSON.stringify(abbreviate(aliasLabelName))} is not a valid label name (${nameProblems.join('; ')}); Karmada rejects the policy`);
    }
    if (seenAliases.has(aliasLabelName)) warn(`aliasLabelName is used by more than one rule; Karmada keeps the value of the last one`);
    seenAliases.add(aliasLabelName);

    if (status.error !== undefined) {
      fail(status.error);
      continue;
    }
    let compiled: CompiledTemplate;
    try {
      compiled = compileJsonPath(jsonPath);
    } catch (error) {
      // Karmada returns parse errors unwrapped.
      if (error instanceof JsonPathParseError) fail(error.message);
      else throw error;
      continue;
    }
    if (compiled.root.nodes.every((node) => node.type === 'text')) {
      const shown = abbreviate(jsonPath);
      warn(`jsonPath ${JSON.stringify(shown)} has no {…} expression, so the value is that literal text; did you mean "{${shown}}"?`);
    }
    let value: string;
    try {
      const evaluation = evaluateJsonPath(compiled, status.value, { sharedBudget });
      value = evaluation.text;
      if (evaluation.mapOrderDependent) {
        warn('the value lists several map entries; Go iterates maps in random order, so Karmada may produce them in a different order');
      }
    } catch (error) {
      if (!(error instanceof JsonPathExecError)) throw error;
      fail(`failed to execute jsonpath ${goSprintfText('%q', jsonPath)}: ${error.message}`);
      // Past a cap of this server the rule fails the way a missing key does; Karmada has no such cap.
      if (error instanceof JsonPathLimitError) continue;
      if (error.mapOrderDependent) {
        warn('the template walks a map with several entries; Go iterates maps in random order, so Karmada may fail on another entry, or not at all');
      }
      const hint = statusPrefixHint(jsonPath, status.value);
      if (hint) warn(hint);
      continue;
    }
    labels.push([aliasLabelName, value]);
    const valueProblems = labelValueErrors(value);
    if (valueProblems.length > 0) {
      warn(
        `value ${JSON.stringify(abbreviate(value))} is not a valid label value (${valueProblems.join('; ')}); the member cluster will reject the workload when Karmada injects this label`,
      );
    }
  }
  // fromEntries defines own properties, so an alias such as "__proto__" stays a plain key.
  return { labels: Object.fromEntries(labels), errors, warnings };
}

/** Long values stay readable in messages; the full value is in `labels`. */
function abbreviate(value: string): string {
  return value.length > 80 ? `${value.slice(0, 77)}...` : value;
}

/** The status as Karmada decodes it from the rawStatus bytes, or the error Karmada reports. */
function asKarmadaSeesIt(reflectedStatus: unknown, clusterName: string): { value?: unknown; error?: string } {
  // rawStatus null or absent: the application failover controller gives up before evaluating rules.
  const notCollected = { error: `the application status has not yet been collected from Cluster(${clusterName})` };
  if (reflectedStatus === undefined || reflectedStatus === null) return notCollected;
  let text: string | undefined;
  try {
    text = JSON.stringify(reflectedStatus);
  } catch (error) {
    return { error: `the reflected status cannot be encoded as JSON: ${(error as Error).message}` };
  }
  if (text === undefined) return notCollected;
  return { value: JSON.parse(text) };
}

/** Rules run against the reflected status itself, a common mistake is starting with `.status`. */
function statusPrefixHint(jsonPath: string, status: unknown): string | undefined {
  if (!/\{\s*[@$]?\.status[.[]/.test(jsonPath)) return undefined;
  const hasStatusKey = typeof status === 'object' && status !== null && Object.prototype.hasOwnProperty.call(status, 'status');
  if (hasStatusKey) return undefined;
  return 'rules are evaluated against the reflected status itself: write {.field}, not {.status.field}';
}
