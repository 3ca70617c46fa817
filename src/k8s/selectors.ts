// metav1.LabelSelector validation and matching (apimachinery metav1.LabelSelectorAsSelector semantics).

import { isJsonObject, type LabelSelector } from '../interpreter/types.ts';
import { quoteForMessage } from './quantity.ts';
import { isQualifiedName } from './resource-names.ts';

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);
/** Problems reported for one selector; values are quoted cut short, so a message stays small. */
export const MAX_SELECTOR_ERRORS = 10;

/** validation.IsValidLabelValue: at most 63 characters, alphanumeric at both ends. */
export function isValidLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

/**
 * Problems LabelSelectorAsSelector would report for `selector` (empty when it converts cleanly); at
 * most MAX_SELECTOR_ERRORS of them (Go stops at the first).
 */
export function labelSelectorErrors(selector: unknown): string[] {
  if (selector === undefined || selector === null) return [];
  if (!isJsonObject(selector)) return ['selector must be an object'];
  const errors: string[] = [];
  const full = () => errors.length >= MAX_SELECTOR_ERRORS;
  const { matchLabels, matchExpressions } = selector;
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isJsonObject(matchLabels)) errors.push('matchLabels must be an object');
    else {
      for (const [key, value] of Object.entries(matchLabels)) {
        if (full()) break;
        if (!isQualifiedName(key)) errors.push(`matchLabels: invalid label key ${quoteForMessage(key)}`);
        if (typeof value !== 'string' || !isValidLabelValue(value)) {
          errors.push(`matchLabels: invalid value ${quoteForMessage(value)} for key ${quoteForMessage(key)}`);
        }
      }
    }
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) errors.push('matchExpressions must be a list');
    else {
      for (let i = 0; i < matchExpressions.length && !full(); i++) {
        const expr = matchExpressions[i];
        const where = `matchExpressions[${i}]`;
        if (!isJsonObject(expr)) {
          errors.push(`${where} must be an object`);
          continue;
        }
        const values: unknown[] = Array.isArray(expr.values) ? expr.values : [];
        if (typeof expr.key !== 'string' || !isQualifiedName(expr.key)) errors.push(`${where}: invalid key ${quoteForMessage(expr.key)}`);
        if (!OPERATORS.has(expr.operator)) errors.push(`${where}: ${quoteForMessage(expr.operator)} is not a valid label selector operator`);
        if ((expr.operator === 'In' || expr.operator === 'NotIn') && values.length === 0) {
          errors.push(`${where}: values must be non-empty for ${expr.operator}`);
        }
        if ((expr.operator === 'Exists' || expr.operator === 'DoesNotExist') && values.length > 0) {
          errors.push(`${where}: values must be empty for ${expr.operator}`);
        }
        for (const value of values) {
          if (full()) break;
          if (typeof value !== 'string' || !isValidLabelValue(value)) errors.push(`${where}: invalid value ${quoteForMessage(value)}`);
        }
      }
    }
  }
  return errors.slice(0, MAX_SELECTOR_ERRORS);
}

/**
 * Whether `labels` satisfy `selector`. As in Kubernetes, an absent selector matches nothing and an empty
 * one matches everything. Throws if the selector is invalid (see labelSelectorErrors).
 */
export function labelSelectorMatches(selector: LabelSelector | null | undefined, labels: Record<string, string> | undefined): boolean {
  if (selector === undefined || selector === null) return false;
  const errors = labelSelectorErrors(selector);
  if (errors.length > 0) throw new Error(`invalid label selector: ${errors.join('; ')}`);
  const have = labels ?? {};
  const has = (key: string) => Object.prototype.hasOwnProperty.call(have, key);
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!has(key) || have[key] !== value) return false;
  }
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const present = has(key);
    const ok =
      operator === 'In'
        ? present && values.includes(have[key])
        : operator === 'NotIn'
          ? !present || !values.includes(have[key])
          : operator === 'Exists'
            ? present
            : !present;
    if (!ok) return false;
  }
  return true;
}
