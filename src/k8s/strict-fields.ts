// Unknown fields, as the API server's strict field validation finds them (`kubectl apply` with
// --validate=strict, the default): a field the CRD schema does not declare is refused, so a misspelled
// `healthInterpretations:` or `luaScrpt:` fails loudly instead of silently meaning nothing. Written
// here because we need only the field names of the parts we read, with a path and a suggestion per
// unknown field; a full OpenAPI validator would need the whole CRD schema and words its errors per keyword.
import { didYouMean } from '../did-you-mean.ts';

/** The fields an object may have; `'any'` accepts anything (free-form or a scalar we type-check elsewhere). */
export type Shape = 'any' | { readonly fields: Readonly<Record<string, Shape>> } | { readonly items: Shape };

export interface UnknownField {
  /** Dotted path from the document's root, list indexes in brackets: `spec.customizations.luaScrpt`. */
  path: string;
  suggestion?: string;
}

/** At most this many are reported per document: past a few, the file is probably not of this kind at all. */
const MAX_REPORTED = 10;

export function unknownFields(value: unknown, shape: Shape): UnknownField[] {
  const found: UnknownField[] = [];
  walk(value, shape, '', found);
  return found;
}

function walk(value: unknown, shape: Shape, path: string, found: UnknownField[]): void {
  if (shape === 'any' || found.length >= MAX_REPORTED) return;
  if ('items' in shape) {
    if (Array.isArray(value)) value.forEach((item, index) => walk(item, shape.items, `${path}[${index}]`, found));
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const known = Object.keys(shape.fields);
  for (const [field, child] of Object.entries(value)) {
    const at = path ? `${path}.${field}` : field;
    const fieldShape = Object.hasOwn(shape.fields, field) ? shape.fields[field] : undefined;
    if (fieldShape === undefined) {
      if (found.length >= MAX_REPORTED) return;
      const suggestion = didYouMean(field, known);
      found.push(suggestion === undefined ? { path: at } : { path: at, suggestion });
    } else {
      walk(child, fieldShape, at, found);
    }
  }
}

/** `unknown field "spec.luaScrpt" (did you mean luaScript?)`, several joined with "; ". */
export function describeUnknownFields(fields: readonly UnknownField[]): string {
  // Field names can come from a request (the /preserve route): quote a readable length of them.
  const shown = (path: string) => (path.length > 200 ? `${path.slice(0, 197)}...` : path);
  return fields.map((f) => `unknown field ${JSON.stringify(shown(f.path))}${f.suggestion ? ` (did you mean ${f.suggestion}?)` : ''}`).join('; ');
}
