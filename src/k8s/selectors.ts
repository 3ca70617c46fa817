// metav1.LabelSelector validation and matching (apimachinery metav1.LabelSelectorAsSelector semantics).

import type { LabelSelector } from '../interpreter/types.ts';
import { isQualifiedName } from './resource-names.ts';

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** validation.IsValidLabelValue: at most 63 characters, alphanumeric at both ends. */
export function isValidLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

/** Problems LabelSelectorAsSelector would report for `selector` (empty when it converts cleanly). */
export function labelSelectorErrors(selector: unknown): string[] {
  if (selector === undefined || selector === null) return [];
  if (!isObject(selector)) return ['selector must be an object'];
  const errors: string[] = [];
  const { matchLabels, matchExpressions } = selector;
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isObject(matchLabels)) errors.push('matchLabels must be an object');
    else {
      for (const [key, value] of Object.entries(matchLabels)) {
        if (!isQualifiedName(key)) errors.push(`matchLabels: invalid label key ${JSON.stringify(key)}`);
        if (typeof value !== 'string' || !isValidLabelValue(value)) {
          errors.push(`matchLabels: invalid value ${JSON.stringify(value)} for key ${JSON.stringify(key)}`);
        }
      }
    }
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) errors.push('matchExpressions must be a list');
    else {
      matchExpressions.forEach((expr, i) => {
        const where = `matchExpressions[${i}]`;
        if (!isObject(expr)) return void errors.push(`${where} must be an object`);
        const values: unknown[] = Array.isArray(expr.values) ? expr.values : [];
        if (typeof expr.key !== 'string' || !isQualifiedName(expr.key)) errors.push(`${where}: invalid key ${JSON.stringify(expr.key)}`);
        if (!OPERATORS.has(expr.operator)) errors.push(`${where}: ${JSON.stringify(expr.operator)} is not a valid label selector operator`);
        if ((expr.operator === 'In' || expr.operator === 'NotIn') && values.length === 0) {
          errors.push(`${where}: values must be non-empty for ${expr.operator}`);
        }
        if ((expr.operator === 'Exists' || expr.operator === 'DoesNotExist') && values.length > 0) {
          errors.push(`${where}: values must be empty for ${expr.operator}`);
        }
        for (const value of values) {
          if (typeof value !== 'string' || !isValidLabelValue(value)) errors.push(`${where}: invalid value ${JSON.stringify(value)}`);
        }
      });
    }
  }
  return errors;
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
      operator === 'In' ? present && values.includes(have[key])
      : operator === 'NotIn' ? !present || !values.includes(have[key])
      : operator === 'Exists' ? present
      : !present;
    if (!ok) return false;
  }
  return true;
}
