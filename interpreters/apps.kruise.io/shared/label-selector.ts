// metav1.LabelSelector → the string form Kubernetes prints (labels.Selector.String()), which is what
// Kruise writes into status.labelSelector for the scale subresource. Hand-written: the shape is tiny
// and @kubernetes/client-node has no formatter.
import { isJsonObject, type LabelSelector } from '../../../src/interpreter/types.ts';

function requirementString(key: string, operator: string, values: string[]): string | undefined {
  const set = [...new Set(values)].sort().join(',');
  switch (operator) {
    case 'In':
      return `${key} in (${set})`;
    case 'NotIn':
      return `${key} notin (${set})`;
    case 'Exists':
      return key;
    case 'DoesNotExist':
      return `!${key}`;
    default:
      return undefined; // invalid operator: Kubernetes would refuse the selector
  }
}

/**
 * "" for a missing, empty or invalid selector (label values must be strings, as Go's decoder requires).
 * Requirements are sorted by key, as Kubernetes does.
 */
export function formatLabelSelector(selector: unknown): string {
  if (!isJsonObject(selector)) return '';
  const s = selector as LabelSelector;
  const parts: Array<{ key: string; text: string }> = [];
  for (const [key, value] of Object.entries(isJsonObject(s.matchLabels) ? s.matchLabels : {})) {
    if (typeof value !== 'string') return '';
    parts.push({ key, text: `${key}=${value}` });
  }
  for (const req of Array.isArray(s.matchExpressions) ? s.matchExpressions : []) {
    if (!isJsonObject(req) || typeof req.key !== 'string' || typeof req.operator !== 'string') return '';
    const values: unknown[] = Array.isArray(req.values) ? req.values : [];
    if (!values.every((v): v is string => typeof v === 'string')) return '';
    const text = requirementString(req.key, req.operator, values as string[]);
    if (text === undefined) return '';
    parts.push({ key: req.key, text });
  }
  // Stable sort by key only, like labels.ByKey.
  parts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return parts.map((p) => p.text).join(',');
}
