// Parsing ResourceInterpreterCustomization (RIC) files: multi-document YAML or JSON, config.karmada.io/v1alpha1.
// YAML is read with the `yaml` package in YAML 1.2 mode: Karmada's own files rely on folded block scalars
// (`luaScript: >`) folding exactly as the 1.2 spec says, which the package implements.
import { readYamlDocuments } from '../k8s/yaml-documents.ts';
import type { Operation } from '../interpreter/types.ts';

export const RIC_API_VERSION = 'config.karmada.io/v1alpha1';
export const RIC_KIND = 'ResourceInterpreterCustomization';

export interface CustomizationRule {
  /** Field under spec.customizations. */
  field: CustomizationField;
  /** karmadactl rule name = Karmada operation. */
  operation: Operation;
  /** The global Lua function the script must define. */
  functionName: string;
}

/** The customization fields in karmadactl's rule order (pkg/util/interpreter/rule.go). */
export const CUSTOMIZATION_RULES = [
  { field: 'retention', operation: 'Retain', functionName: 'Retain' },
  { field: 'replicaResource', operation: 'InterpretReplica', functionName: 'GetReplicas' },
  { field: 'componentResource', operation: 'InterpretComponent', functionName: 'GetComponents' },
  { field: 'replicaRevision', operation: 'ReviseReplica', functionName: 'ReviseReplica' },
  { field: 'statusReflection', operation: 'InterpretStatus', functionName: 'ReflectStatus' },
  { field: 'statusAggregation', operation: 'AggregateStatus', functionName: 'AggregateStatus' },
  { field: 'healthInterpretation', operation: 'InterpretHealth', functionName: 'InterpretHealth' },
  { field: 'dependencyInterpretation', operation: 'InterpretDependency', functionName: 'GetDependencies' },
] as const satisfies ReadonlyArray<{ field: string; operation: Operation; functionName: string }>;

export type CustomizationField = (typeof CUSTOMIZATION_RULES)[number]['field'];

/** One RIC object as read from a file. */
export interface Customization {
  name: string;
  target: { apiVersion: string; kind: string };
  /**
   * luaScript per field that is present in spec.customizations. An empty string means "present but
   * unset": Karmada treats it as no script (karmadactl prints UNSET) and a later RIC may fill it.
   */
  scripts: Partial<Record<CustomizationField, string>>;
  file: string;
  /** 1-based position of the document in its file. */
  document: number;
}

/** The outcome for one document of a file: a customization, or why it is not one. */
export interface ParsedDocument {
  document: number;
  /** metadata.name when it could be read (also for documents that are not valid RICs). */
  name?: string;
  customization?: Customization;
  error?: string;
}

/**
 * Parses every document of a RIC file. Empty documents (a trailing `---`) are skipped; a `v1 List`
 * is flattened as kubectl does. Unknown fields are ignored, as the API server's decoder does.
 */
export function parseCustomizationFile(text: string, file: string): ParsedDocument[] {
  const results: ParsedDocument[] = [];
  for (const { document, value, error } of readYamlDocuments(text, { maxAliasCount: 1000 })) {
    if (error !== undefined) {
      results.push({ document, error: `invalid YAML: ${error}` });
      continue;
    }
    if (value === null || value === undefined) continue;
    if (isRecord(value) && value.apiVersion === 'v1' && value.kind === 'List' && Array.isArray(value.items)) {
      for (const item of value.items) results.push(toParsedDocument(item, file, document));
      continue;
    }
    results.push(toParsedDocument(value, file, document));
  }
  return results;
}

function toParsedDocument(value: unknown, file: string, document: number): ParsedDocument {
  if (!isRecord(value)) return { document, error: `not an object (got ${describe(value)})` };
  const name = isRecord(value.metadata) && typeof value.metadata.name === 'string' ? value.metadata.name : undefined;
  const fail = (error: string): ParsedDocument => ({ document, name, error });

  if (value.apiVersion !== RIC_API_VERSION || value.kind !== RIC_KIND) {
    return fail(`not a ${RIC_KIND}, got ${groupVersionKindString(value.apiVersion, value.kind)}`);
  }
  if (!name) return fail('metadata.name is not set');
  const spec = value.spec;
  if (!isRecord(spec)) return fail('spec is not set');
  const target = spec.target;
  if (!isRecord(target)) return fail('spec.target is not set');
  if (typeof target.kind !== 'string' || target.kind === '') return fail('spec.target.kind is not set');
  if (typeof target.apiVersion !== 'string' || target.apiVersion === '') {
    return fail('spec.target.apiVersion is not set');
  }

  const scripts: Partial<Record<CustomizationField, string>> = {};
  const customizations = spec.customizations ?? {};
  if (!isRecord(customizations)) return fail('spec.customizations is not an object');
  for (const { field } of CUSTOMIZATION_RULES) {
    const rule = customizations[field];
    if (rule === undefined || rule === null) continue;
    if (!isRecord(rule)) return fail(`spec.customizations.${field} is not an object`);
    const script = rule.luaScript ?? '';
    if (typeof script !== 'string') {
      return fail(`spec.customizations.${field}.luaScript is not a string (got ${describe(script)})`);
    }
    scripts[field] = script;
  }
  return {
    document,
    name,
    customization: { name, target: { apiVersion: target.apiVersion, kind: target.kind }, scripts, file, document },
  };
}

/** As apimachinery's GroupVersionKind.String() prints it, which is what karmadactl shows. */
function groupVersionKindString(apiVersion: unknown, kind: unknown): string {
  const gv = typeof apiVersion === 'string' ? apiVersion : '';
  return `${gv.includes('/') ? gv : `/${gv}`}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

function isRecord(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value;
}
