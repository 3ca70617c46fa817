// Karmada's declarative test-case format (thirdparty_test.go) and its comparison rules (spec §6.1,
// §6.2), shared by `test` (in process) and `conformance` (over HTTPS). Case keys match
// case-insensitively, as Go's encoding/json does; `output` keys are map keys and match exactly.
import { readFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import { didYouMean, didYouMeanSuffix } from '../did-you-mean.ts';
import { Quantity } from '../k8s/quantity.ts';
import { describeUnknownFields, type UnknownField } from '../k8s/strict-fields.ts';
import { readYamlDocuments } from '../k8s/yaml-documents.ts';
import type { InterpretInput, InterpretResult } from '../interpreter/dispatch.ts';
import { OPERATIONS, type AggregatedStatusItem, type KObject, type Operation } from '../interpreter/types.ts';

export interface TestCase {
  file: string;
  name: string;
  description?: string;
  operation: string;
  desiredObj?: KObject;
  observedObj?: KObject;
  statusItems?: AggregatedStatusItem[];
  inputReplicas?: number;
  output: Record<string, unknown>;
  /** Set when this document could not be parsed; the case fails with it, the file's other cases still run. */
  loadError?: string;
}

const CASE_FIELDS = ['name', 'description', 'desiredObj', 'observedObj', 'statusItems', 'inputReplicas', 'operation', 'output'] as const;

export async function loadTestCases(file: string): Promise<TestCase[]> {
  const text = await readFile(file, 'utf8');
  const cases: TestCase[] = [];
  for (const doc of readYamlDocuments(text, { maxAliasCount: 100 })) {
    const index = doc.document - 1;
    // Karmada's decoder reads one document at a time, so a malformed document fails alone.
    if (doc.error !== undefined) {
      cases.push({ file, name: `document ${index + 1}`, operation: '', output: {}, loadError: `document ${index + 1}: ${doc.error}` });
      continue;
    }
    const raw = doc.value as Record<string, unknown> | null | undefined;
    if (raw === null || raw === undefined) continue;
    const tc: Record<string, unknown> = { file };
    // Karmada's decoder drops an unknown field silently, so a misspelled `ouput:` would leave a case
    // that compares nothing and passes: here an unknown field fails its case, as in customization files.
    const unknown: UnknownField[] = [];
    for (const [key, value] of Object.entries(raw)) {
      const field = CASE_FIELDS.find((f) => f.toLowerCase() === key.toLowerCase());
      if (field) tc[field] = value;
      else {
        const suggestion = didYouMean(key, CASE_FIELDS);
        unknown.push(suggestion === undefined ? { path: key } : { path: key, suggestion });
      }
    }
    tc.name ??= `document ${index + 1}`;
    tc.output ??= {};
    if (unknown.length > 0) tc.loadError = `document ${index + 1}: ${describeUnknownFields(unknown)}`;
    cases.push(tc as unknown as TestCase);
  }
  return cases;
}

/** The operation as Karmada names it, matched case-insensitively. */
export function caseOperation(tc: TestCase): Operation | undefined {
  return OPERATIONS.find((op) => op.toLowerCase() === String(tc.operation ?? '').toLowerCase());
}

/** The dispatch input for a case, or a problem as Karmada's harness reports it. */
export function caseInput(tc: TestCase): InterpretInput | string {
  if (tc.loadError !== undefined) return tc.loadError;
  const operation = caseOperation(tc);
  if (!operation)
    return `unknown operation ${JSON.stringify(tc.operation)}${didYouMeanSuffix(String(tc.operation ?? ''), OPERATIONS)}; operations: ${OPERATIONS.join(', ')}`;
  let object: KObject | undefined;
  let observedObject: KObject | undefined;
  if (operation === 'Retain') {
    if (!tc.desiredObj || !tc.observedObj) return 'Retain needs both desiredObj and observedObj';
    object = tc.desiredObj;
    observedObject = tc.observedObj;
  } else {
    if (tc.desiredObj && tc.observedObj) return 'you can not specify both desiredObj and observedObj';
    object = tc.desiredObj ?? tc.observedObj;
    if (!object) return 'the case has neither desiredObj nor observedObj';
  }
  if (typeof object.kind !== 'string' || !object.kind) return "the case object has no 'kind'";
  const input: InterpretInput = {
    apiVersion: String(object.apiVersion ?? ''),
    kind: object.kind,
    operation,
    object,
    replicas: operation === 'ReviseReplica' ? Number(tc.inputReplicas ?? 0) : 0,
  };
  if (observedObject) input.observedObject = observedObject;
  // Absent statusItems is nil in Karmada (Lua nil); an empty list stays an empty list.
  if (operation === 'AggregateStatus' && tc.statusItems != null) input.aggregatedStatus = typedStatusItems(tc.statusItems);
  return input;
}

/**
 * statusItems as Karmada's harness holds them after decoding into []AggregatedStatusItem: keys matched
 * case-insensitively, unknown keys dropped, clusterName always present ("" when missing), the
 * omitempty fields left out when empty. Karmada's webhook client sends exactly this.
 */
function typedStatusItems(items: unknown[]): AggregatedStatusItem[] {
  return items.map((raw) => {
    const fields = new Map<string, unknown>();
    if (raw !== null && typeof raw === 'object') {
      for (const [key, value] of Object.entries(raw)) fields.set(key.toLowerCase(), value);
    }
    const item: AggregatedStatusItem = { clusterName: stringField(fields.get('clustername')) };
    const status = fields.get('status');
    if (status !== null && status !== undefined) item.status = status as Record<string, unknown>;
    if (fields.get('applied') === true) item.applied = true;
    const appliedMessage = stringField(fields.get('appliedmessage'));
    if (appliedMessage) item.appliedMessage = appliedMessage;
    const health = stringField(fields.get('health'));
    if (health) item.health = health;
    return item;
  });
}

function stringField(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Results keyed by the names Karmada's harness uses (rule.go). */
export type CaseResults = Record<string, unknown>;

export function resultsOf(result: InterpretResult): CaseResults {
  switch (result.operation) {
    case 'Retain':
      return { retained: result.object };
    case 'ReviseReplica':
      return { revised: result.object };
    case 'AggregateStatus':
      return { aggregatedStatus: result.object };
    case 'InterpretReplica':
      return result.requirements === undefined ? { replica: result.replicas } : { replica: result.replicas, requires: result.requirements };
    case 'InterpretComponent':
      return { components: result.components };
    case 'InterpretDependency':
      return { dependencies: result.dependencies };
    case 'InterpretStatus':
      return { status: result.status };
    case 'InterpretHealth':
      return { healthy: result.healthy };
  }
}

const EXCLUDE = '{{EXCLUDE}}';

/**
 * Why a case's `output` can not be checked, or undefined: a case that expects nothing would pass
 * whatever the answer (Karmada's harness passes it; we refuse it).
 */
export function expectationProblem(output: unknown): string | undefined {
  if (output === null || typeof output !== 'object' || Array.isArray(output)) {
    return `output must be a map of expected results (such as healthy: true), not ${output === null ? 'null' : Array.isArray(output) ? 'a list' : typeof output}`;
  }
  if (Object.keys(output).length === 0) return 'the case has no expected output (output is missing or empty), so it would compare nothing';
  return undefined;
}

/**
 * Compares like Karmada's deepEqual per result key; returns the differences (empty = pass). With
 * `asKarmada`, an empty `output` passes, as in Karmada's own harness (thirdparty_test.go compares only the
 * keys it lists, so `output: {}` asks only that the call succeed): that is how `conformance` judges
 * Karmada's corpus, whose cases are Karmada's to define.
 */
export function compareResults(expected: Record<string, unknown>, actual: CaseResults, options: { asKarmada?: boolean } = {}): string[] {
  const refused = expectationProblem(expected);
  if (refused !== undefined && !(options.asKarmada && Object.keys(expected ?? {}).length === 0 && typeof expected === 'object' && !Array.isArray(expected))) {
    return [refused];
  }
  const problems: string[] = [];
  for (const [key, want] of Object.entries(expected)) {
    if (!(key in actual)) {
      problems.push(`output.${key} is not a result of this operation (results: ${Object.keys(actual).join(', ') || 'none'})`);
      continue;
    }
    const got = actual[key];
    if (!equalResult(key, want, got)) problems.push(`${key} differs:\n  expected: ${JSON.stringify(want)}\n  actual:   ${JSON.stringify(got)}`);
  }
  return problems;
}

function equalResult(key: string, want: unknown, got: unknown): boolean {
  switch (key) {
    case 'retained':
    case 'revised':
    case 'aggregatedStatus': {
      const paths = excludedPaths(want);
      return isDeepStrictEqual(withoutPaths(want, paths), withoutPaths(got, paths));
    }
    case 'requires':
      return isDeepStrictEqual(normalizeRequirements(want), normalizeRequirements(got));
    case 'components':
      return isDeepStrictEqual(sortedBy(normalizeList(want).map(normalizeComponent), ['name']), sortedBy(normalizeList(got).map(normalizeComponent), ['name']));
    case 'dependencies':
      return isDeepStrictEqual(
        sortedBy(normalizeList(want).map(normalizeDependency), DEP_ORDER),
        sortedBy(normalizeList(got).map(normalizeDependency), DEP_ORDER),
      );
    default:
      return isDeepStrictEqual(want, got);
  }
}

function excludedPaths(value: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  if (value === EXCLUDE) out.push(prefix);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) excludedPaths(v, [...prefix, k], out);
  }
  return out;
}

function withoutPaths(value: unknown, paths: string[][]): unknown {
  if (paths.length === 0 || value === null || typeof value !== 'object') return value;
  const copy = structuredClone(value) as Record<string, unknown>;
  for (const path of paths) {
    let node: unknown = copy;
    for (const part of path.slice(0, -1)) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
    if (node && typeof node === 'object') delete (node as Record<string, unknown>)[path[path.length - 1]!];
  }
  return copy;
}

// Typed comparisons follow apimachinery's semantic DeepEqual: nil and empty maps/slices are equal,
// quantities compare by value, but an absent struct differs from an empty one (nodeClaim: {}).
const isEmptyCollection = (v: unknown) =>
  v === undefined ||
  v === null ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);

function normalizeList(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? (v as Record<string, unknown>[]) : [];
}

function lowerKeys(v: unknown): Record<string, unknown> {
  // Typed decoding in Go matches struct fields case-insensitively.
  if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
  return Object.fromEntries(Object.entries(v).map(([k, val]) => [k.toLowerCase(), val]));
}

/**
 * Resource quantities by value, as Karmada's harness compares them (Quantity.Equal: "2048m" equals
 * 2.048): each becomes its amount in nano units, Kubernetes' finest precision.
 */
function canonicalResources(v: unknown): Record<string, string> | undefined {
  if (isEmptyCollection(v) || typeof v !== 'object') return undefined;
  const out: Record<string, string> = {};
  for (const [name, q] of Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) {
    try {
      out[name] = `${Quantity.parse(q as string | number).scaledValueBigInt(-9)}n`;
    } catch {
      out[name] = `invalid:${String(q)}`;
    }
  }
  return out;
}

function dropEmpty(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).filter(([, v]) => v !== undefined && !(v !== null && typeof v === 'object' && isEmptyCollection(v) && Array.isArray(v))),
  );
}

function normalizeNodeClaim(v: unknown): unknown {
  if (v === undefined || v === null) return undefined;
  const c = lowerKeys(v);
  return dropEmpty({
    hardNodeAffinity: c.hardnodeaffinity ?? undefined,
    nodeSelector: isEmptyCollection(c.nodeselector) ? undefined : c.nodeselector,
    tolerations: isEmptyCollection(c.tolerations) ? undefined : c.tolerations,
  });
}

function normalizeRequirements(v: unknown): unknown {
  if (v === undefined || v === null) return undefined;
  const r = lowerKeys(v);
  return dropEmpty({
    nodeClaim: normalizeNodeClaim(r.nodeclaim),
    resourceRequest: canonicalResources(r.resourcerequest),
    namespace: r.namespace || undefined,
    priorityClassName: r.priorityclassname || undefined,
  });
}

function normalizeComponent(v: unknown): Record<string, unknown> {
  const c = lowerKeys(v);
  return dropEmpty({ name: c.name ?? '', replicas: c.replicas ?? 0, replicaRequirements: normalizeRequirements(c.replicarequirements) });
}

const DEP_ORDER = ['apiVersion', 'kind', 'namespace', 'name'];

function normalizeDependency(v: unknown): Record<string, unknown> {
  const d = lowerKeys(v);
  return dropEmpty({
    apiVersion: d.apiversion ?? '',
    kind: d.kind ?? '',
    namespace: d.namespace || undefined,
    name: d.name || undefined,
    labelSelector: isEmptyCollection(d.labelselector) ? undefined : d.labelselector,
  });
}

function sortedBy<T extends Record<string, unknown>>(items: T[], keys: string[]): T[] {
  return [...items].sort((a, b) => {
    for (const k of keys) {
      const c = String(a[k] ?? '').localeCompare(String(b[k] ?? ''));
      if (c !== 0) return c;
    }
    return 0;
  });
}
