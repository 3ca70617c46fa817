// Runs Karmada-format test cases (conformance README / protocol spec §6.1–6.2) directly against the
// Workflow module, comparing the way Karmada's harness does. A stop-gap until the lead's testdata runner
// (src/interpreter/testcases.ts, real dispatch) covers the same files; kept small on purpose.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { DependentObjectReference, KindInterpreter, ReplicaRequirements } from '../../src/interpreter/types.js';
import { canonicalQuantity } from '../../src/k8s/quantity.js';

export interface KarmadaCase {
  file: string;
  name: string;
  operation: string;
  desiredObj?: Record<string, any>;
  observedObj?: Record<string, any>;
  statusItems?: any[];
  inputReplicas?: number;
  output: Record<string, any>;
}

/** Karmada decodes case keys case-insensitively (Go encoding/json). */
function field(doc: Record<string, any>, name: string): any {
  const key = Object.keys(doc).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : doc[key];
}

export function loadCases(dir: string): KarmadaCase[] {
  const cases: KarmadaCase[] = [];
  for (const file of readdirSync(dir).filter((name) => /\.ya?ml$/.test(name)).sort()) {
    for (const document of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
      const doc = document.toJS() as Record<string, any> | null;
      if (!doc) continue;
      cases.push({
        file,
        name: field(doc, 'name'),
        operation: String(field(doc, 'operation')).toLowerCase(),
        desiredObj: field(doc, 'desiredObj'),
        observedObj: field(doc, 'observedObj'),
        statusItems: field(doc, 'statusItems'),
        inputReplicas: field(doc, 'inputReplicas'),
        output: field(doc, 'output') ?? {},
      });
    }
  }
  return cases;
}

/** `"{{EXCLUDE}}"` values name fields (dot path, array indices included) to drop from both sides. */
function excludedPaths(value: unknown, prefix: string[] = [], found: string[][] = []): string[][] {
  if (value === '{{EXCLUDE}}') found.push(prefix);
  else if (Array.isArray(value)) value.forEach((item, index) => excludedPaths(item, [...prefix, String(index)], found));
  else if (value && typeof value === 'object') for (const [key, child] of Object.entries(value)) excludedPaths(child, [...prefix, key], found);
  return found;
}

function removePath(value: any, path: string[]): void {
  const parent = path.slice(0, -1).reduce((node, key) => (node && typeof node === 'object' ? node[key] : undefined), value);
  if (parent && typeof parent === 'object') delete parent[path[path.length - 1]!];
}

function withoutExcluded(expected: unknown, actual: unknown): [unknown, unknown] {
  const left = structuredClone(expected);
  const right = structuredClone(actual);
  for (const path of excludedPaths(expected)) {
    removePath(left, path);
    removePath(right, path);
  }
  return [left, right];
}

/** JSON with object keys sorted, the way Go marshals maps. */
export function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, child]) => child !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${sortedJson(child)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function canonicalRequirements(requirements: ReplicaRequirements | undefined): unknown {
  if (!requirements) return undefined;
  const copy: Record<string, any> = structuredClone(requirements);
  if (copy.resourceRequest) {
    copy.resourceRequest = Object.fromEntries(Object.entries(copy.resourceRequest).map(([name, quantity]) => [name, canonicalQuantity(quantity as string)]));
  }
  return JSON.parse(sortedJson(copy));
}

function sortedDependencies(list: DependentObjectReference[] | undefined): string[] {
  return (list ?? []).map((ref) => sortedJson(ref)).sort();
}

export interface CaseResult {
  expected: unknown;
  actual: unknown;
}

/** The result and expectation of one case, both normalized so that `toEqual` compares as Karmada does. */
export async function runCase(module: KindInterpreter, testCase: KarmadaCase): Promise<CaseResult> {
  const object = structuredClone(testCase.desiredObj ?? testCase.observedObj) as Record<string, any>;
  const output = testCase.output;
  switch (testCase.operation) {
    case 'retain': {
      const actual = await module.retain!(structuredClone(testCase.desiredObj!), structuredClone(testCase.observedObj!));
      const [expected, result] = withoutExcluded(output.retained, actual);
      return { expected, actual: result };
    }
    case 'revisereplica': {
      const actual = await module.reviseReplica!(object, testCase.inputReplicas ?? 0);
      const [expected, result] = withoutExcluded(output.revised, actual);
      return { expected, actual: result };
    }
    case 'aggregatestatus': {
      const actual = await module.aggregateStatus!(object, structuredClone(testCase.statusItems));
      const [expected, result] = withoutExcluded(output.aggregatedStatus, actual);
      return { expected, actual: result };
    }
    case 'interpretreplica': {
      const actual = await module.getReplicas!(object);
      const expected: Record<string, unknown> = { replica: output.replica };
      const result: Record<string, unknown> = { replica: actual.replicas };
      // Karmada only logs a result key that the case does not mention.
      if ('requires' in output) {
        expected.requires = canonicalRequirements(output.requires);
        result.requires = canonicalRequirements(actual.requirements);
      }
      return { expected, actual: result };
    }
    case 'interpretdependency':
      return { expected: sortedDependencies(output.dependencies), actual: sortedDependencies(await module.getDependencies!(object)) };
    case 'interpretstatus':
      return { expected: sortedJson(output.status), actual: sortedJson(await module.reflectStatus!(object)) };
    case 'interprethealth':
      return { expected: output.healthy, actual: await module.interpretHealth!(object) };
    default:
      throw new Error(`unsupported operation ${testCase.operation} in ${testCase.file}: ${testCase.name}`);
  }
}
