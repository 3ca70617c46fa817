// Parsing ResourceInterpreterCustomization (RIC) files: multi-document YAML or JSON, config.karmada.io/v1alpha1.
// YAML is read with the `yaml` package in YAML 1.2 mode: Karmada's own files rely on folded block scalars
// (`luaScript: >`) folding exactly as the 1.2 spec says, which the package implements.
import { isScalar, Scalar, type Document } from 'yaml';
import { didYouMean } from '../did-you-mean.ts';
import type { Operation } from '../interpreter/types.ts';
import { describeUnknownFields, unknownFields, type Shape } from '../k8s/strict-fields.ts';
import { readYamlDocumentsWithLines, type LinePositions } from '../k8s/yaml-documents.ts';
import { CUSTOMIZATION_RULES, type CustomizationField } from '../lua/operations.ts';

export const RIC_API_VERSION = 'config.karmada.io/v1alpha1';
export const RIC_KIND = 'ResourceInterpreterCustomization';

/**
 * Where a script sits in its file, so a Lua line number can be given as a line of the file.
 * `lines`: a literal block (`luaScript: |`), script line N is file line firstLine + N - 1.
 * `single`: the whole value is on one file line (JSON, a quoted one-liner): every script line is there.
 * `none`: folded (`luaScript: >`) or a multi-line quoted scalar: lines do not map one to one.
 */
export interface ScriptPosition {
  firstLine: number;
  mapping: 'lines' | 'single' | 'none';
  /** `luaScript: >` joined lines of the file into one script line (a `--` comment then swallows the code after it). */
  foldedLines?: boolean;
}

/** One RIC object as read from a file. */
export interface Customization {
  name: string;
  target: { apiVersion: string; kind: string };
  /**
   * luaScript per field that is present in spec.customizations. An empty string means "present but
   * unset": Karmada treats it as no script (karmadactl prints UNSET) and a later RIC may fill it.
   */
  scripts: Partial<Record<CustomizationField, string>>;
  /** Where each script is in the file, when the YAML reader kept positions (not for the js-yaml fallback). */
  positions?: Partial<Record<CustomizationField, ScriptPosition>>;
  file: string;
  /** 1-based position of the document in its file. */
  document: number;
}

/** The outcome for one document of a file: a customization, an object of another kind, or why it is not one. */
export interface ParsedDocument {
  document: number;
  /** metadata.name when it could be read (also for documents that are not valid RICs). */
  name?: string;
  customization?: Customization;
  error?: string;
  /** The target, when it could be read from a document with an error (so calls for it can say it failed). */
  target?: { apiVersion: string; kind: string };
  /** The operations a document with an error defines scripts for, as far as they could be read. */
  operations?: Operation[];
  /**
   * Set for an object of another kind (a Kustomization, a ConfigMap, the webhook configuration kept in
   * the same folder): not an error, the object is skipped with this warning.
   */
  skipped?: string;
}

/** The fields of a RIC, as the CRD declares them (karmada-io/karmada charts/karmada/_crds/bases/config/config.karmada.io_resourceinterpretercustomizations.yaml). */
const RULE_SHAPE: Shape = { fields: { luaScript: 'any' } };
const RIC_SHAPE: Shape = {
  fields: {
    apiVersion: 'any',
    kind: 'any',
    metadata: 'any',
    spec: {
      fields: {
        target: { fields: { apiVersion: 'any', kind: 'any' } },
        customizations: { fields: Object.fromEntries(CUSTOMIZATION_RULES.map(({ field }) => [field, RULE_SHAPE])) },
      },
    },
  },
};

/**
 * Parses every document of a RIC file. Empty documents (a trailing `---`) are skipped; a `v1 List`
 * is flattened as kubectl does. Unknown fields are an error, as `kubectl apply` refuses them (strict
 * field validation); objects of other kinds are skipped with a warning (`skipped`).
 */
export function parseCustomizationFile(text: string, file: string): ParsedDocument[] {
  const results: ParsedDocument[] = [];
  const { documents, lines } = readYamlDocumentsWithLines(text, { maxAliasCount: 1000 });
  for (const { document, value, error, node } of documents) {
    if (error !== undefined) {
      results.push({ document, error: `invalid YAML: ${error}` });
      continue;
    }
    if (value === null || value === undefined) continue;
    const locate = (path: readonly (string | number)[]) => scriptPosition(node, path, lines);
    if (isRecord(value) && value.apiVersion === 'v1' && value.kind === 'List' && Array.isArray(value.items)) {
      value.items.forEach((item, index) => results.push(toParsedDocument(item, file, document, (path) => locate(['items', index, ...path]))));
      continue;
    }
    results.push(toParsedDocument(value, file, document, locate));
  }
  return results;
}

type Locate = (path: readonly (string | number)[]) => ScriptPosition | undefined;

function scriptPosition(node: Document.Parsed | undefined, path: readonly (string | number)[], lines: LinePositions): ScriptPosition | undefined {
  const scalar = node?.getIn(path, true);
  if (!isScalar(scalar) || !scalar.range || typeof scalar.value !== 'string') return undefined;
  const [start, valueEnd] = scalar.range;
  const startLine = lines.lineOf(start);
  if (scalar.type === Scalar.BLOCK_LITERAL) return { firstLine: startLine + 1, mapping: 'lines' };
  if (scalar.type === Scalar.BLOCK_FOLDED) {
    // The block's own lines (after the `>` header) against the lines of the folded value.
    const sourceLines = lines.lineOf(Math.max(start, valueEnd - 1)) - startLine;
    const valueLines = scalar.value.replace(/\n+$/, '').split('\n').length;
    return { firstLine: startLine + 1, mapping: 'none', foldedLines: valueLines < sourceLines };
  }
  return { firstLine: startLine, mapping: lines.lineOf(Math.max(start, valueEnd - 1)) === startLine ? 'single' : 'none' };
}

/**
 * "script line 5 (FILE line 23)": the script line is what Karmada reports, the file line is where to
 * look. Without `file`, "line 23 of the file". Folded scripts only say where the script starts.
 */
export function scriptLineText(scriptLine: number, position: ScriptPosition | undefined, file?: string): string {
  const at = (line: number) => (file ? `${file} line ${line}` : `line ${line} of the file`);
  if (!position) return `script line ${scriptLine}`;
  if (position.mapping === 'none') return `script line ${scriptLine} (the script starts at ${at(position.firstLine)})`;
  return `script line ${scriptLine} (${at(position.mapping === 'lines' ? position.firstLine + scriptLine - 1 : position.firstLine)})`;
}

/** Appended to errors of a script that `luaScript: >` folded: the most common way a working script breaks in YAML. */
export function foldingHint(position: ScriptPosition | undefined): string {
  return position?.foldedLines
    ? ' (hint: "luaScript: >" folds lines of the same indentation into one line, so a "--" comment swallows the code after it and line numbers shift; write "luaScript: |" to keep the lines as they are)'
    : '';
}

const OBJECT_KINDS_CLOSE_TO_RIC = [RIC_KIND];

function toParsedDocument(value: unknown, file: string, document: number, locate: Locate): ParsedDocument {
  if (!isRecord(value)) return { document, error: `not an object (got ${describe(value)})` };
  const name = isRecord(value.metadata) && typeof value.metadata.name === 'string' ? value.metadata.name : undefined;
  const fail = (error: string, extra: Partial<ParsedDocument> = {}): ParsedDocument => ({ document, name, error, ...extra });

  if (value.apiVersion !== RIC_API_VERSION || value.kind !== RIC_KIND) {
    const got = groupVersionKindString(value.apiVersion, value.kind);
    const kind = typeof value.kind === 'string' ? value.kind : '';
    const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : '';
    // A RIC with a wrong apiVersion or a misspelled kind is an error; an object of another kind (a
    // Kustomization, the webhook configuration) kept in the same folder is only skipped.
    if (kind === '' || apiVersion === '') return fail(`not a ${RIC_KIND}: apiVersion and kind must be set, got ${got}`);
    if (kind === RIC_KIND) return fail(`not a ${RIC_KIND}: apiVersion must be ${RIC_API_VERSION}, got ${apiVersion}`);
    const suggestion = didYouMean(kind, OBJECT_KINDS_CLOSE_TO_RIC);
    if (suggestion) return fail(`not a ${RIC_KIND}, got ${got} (did you mean kind: ${suggestion}?)`);
    return { document, name, skipped: `skipped: not a ${RIC_KIND}, got ${got}` };
  }
  const spec = value.spec;
  const target = isRecord(spec) && isRecord(spec.target) ? spec.target : undefined;
  const readableTarget =
    target && typeof target.apiVersion === 'string' && target.apiVersion !== '' && typeof target.kind === 'string' && target.kind !== ''
      ? { apiVersion: target.apiVersion, kind: target.kind }
      : undefined;
  const customizationsValue = isRecord(spec) && isRecord(spec.customizations) ? spec.customizations : {};
  const operations = CUSTOMIZATION_RULES.filter(({ field }) => {
    const rule = customizationsValue[field];
    return isRecord(rule) && typeof rule.luaScript === 'string' && rule.luaScript !== '';
  }).map(({ operation }) => operation);
  const failWithTarget = (error: string) => fail(error, readableTarget ? { target: readableTarget, operations } : {});

  const unknown = unknownFields(value, RIC_SHAPE);
  if (unknown.length > 0) return failWithTarget(describeUnknownFields(unknown));
  if (!name) return failWithTarget('metadata.name is not set');
  if (!isRecord(spec)) return fail('spec is not set');
  if (!isRecord(target)) return fail('spec.target is not set');
  if (typeof target.kind !== 'string' || target.kind === '') return fail('spec.target.kind is not set');
  if (typeof target.apiVersion !== 'string' || target.apiVersion === '') {
    return fail('spec.target.apiVersion is not set');
  }

  const scripts: Partial<Record<CustomizationField, string>> = {};
  const positions: Partial<Record<CustomizationField, ScriptPosition>> = {};
  const customizations = spec.customizations ?? {};
  if (!isRecord(customizations)) return failWithTarget('spec.customizations is not an object');
  for (const { field } of CUSTOMIZATION_RULES) {
    const rule = customizations[field];
    if (rule === undefined || rule === null) continue;
    if (!isRecord(rule)) return failWithTarget(`spec.customizations.${field} is not an object`);
    const script = rule.luaScript ?? '';
    if (typeof script !== 'string') {
      return failWithTarget(`spec.customizations.${field}.luaScript is not a string (got ${describe(script)})`);
    }
    scripts[field] = script;
    const position = locate(['spec', 'customizations', field, 'luaScript']);
    if (position) positions[field] = position;
  }
  return {
    document,
    name,
    customization: { name, target: { apiVersion: target.apiVersion, kind: target.kind }, scripts, positions, file, document },
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
