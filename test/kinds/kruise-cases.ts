// Loads Karmada-format interpreter test cases (pkg/resourceinterpreter/default/thirdparty testdata
// shape) and runs them against a KindInterpreter directly, comparing the way Karmada's
// thirdparty_test.go does (spec karmada-protocol.md §6.2). A stop-gap for the Kruise tests until the
// shared runner (src/interpreter/testcases.ts) exists; kept small on purpose.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { DependentObjectReference, KindInterpreter, KObject } from '../../src/interpreter/types.js';
import { quantityEquals } from '../../src/k8s/quantity.js';

export interface KarmadaCase {
  file: string;
  name: string;
  operation: string;
  desiredObj?: KObject;
  observedObj?: KObject;
  statusItems?: any[];
  inputReplicas?: number;
  output: Record<string, any>;
}

export function loadCases(dir: string): KarmadaCase[] {
  if (!existsSync(dir)) return [];
  const cases: KarmadaCase[] = [];
  for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      const value = doc.toJS();
      if (value && typeof value === 'object') cases.push({ file, ...value });
    }
  }
  return cases;
}

/** Removes every field whose expected value is "{{EXCLUDE}}" from both sides (Karmada's convention). */
function exclude(expected: any, actual: any): void {
  if (typeof expected !== 'object' || expected === null || typeof actual !== 'object' || actual === null) return;
  for (const key of Object.keys(expected)) {
    if (expected[key] === '{{EXCLUDE}}') {
      delete expected[key];
      delete actual[key];
    } else exclude(expected[key], actual[key]);
  }
}

const depKey = (d: DependentObjectReference) => [d.apiVersion, d.kind, d.namespace ?? '', d.name ?? ''].join('\u0000');
const sortDeps = (deps: DependentObjectReference[]) => [...deps].sort((a, b) => (depKey(a) < depKey(b) ? -1 : depKey(a) > depKey(b) ? 1 : 0));

function sameRequests(a: Record<string, string> = {}, b: Record<string, string> = {}): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => a[k] !== undefined && b[k] !== undefined && quantityEquals(a[k]!, b[k]!));
}

/** Runs one case; returns {expected, actual} already normalised for deep comparison. */
export async function runCase(m: KindInterpreter, c: KarmadaCase): Promise<{ expected: unknown; actual: unknown }> {
  const object = structuredClone((c.desiredObj ?? c.observedObj)!);
  const output = structuredClone(c.output ?? {});
  switch (c.operation) {
    case 'InterpretReplica': {
      const r = await m.getReplicas!(object);
      const expected: any = { replica: output.replica };
      const actual: any = { replica: r.replicas };
      if ('requires' in output) {
        const { resourceRequest: er, ...erest } = output.requires ?? {};
        const { resourceRequest: ar, ...arest } = (r.requirements ?? {}) as any;
        expected.requires = { ...erest, requestsEqual: true };
        actual.requires = { ...arest, requestsEqual: sameRequests(er, ar) };
      }
      return { expected, actual };
    }
    case 'ReviseReplica': {
      const actual = await m.reviseReplica!(object, c.inputReplicas!);
      exclude(output.revised, actual);
      return { expected: output.revised, actual };
    }
    case 'Retain': {
      const actual = await m.retain!(structuredClone(c.desiredObj!), structuredClone(c.observedObj!));
      exclude(output.retained, actual);
      return { expected: output.retained, actual };
    }
    case 'AggregateStatus': {
      const actual = await m.aggregateStatus!(object, c.statusItems === undefined ? undefined : structuredClone(c.statusItems));
      exclude(output.aggregatedStatus, actual);
      return { expected: output.aggregatedStatus, actual };
    }
    case 'InterpretStatus':
      return { expected: output.status, actual: await m.reflectStatus!(object) };
    case 'InterpretHealth':
      return { expected: output.healthy, actual: await m.interpretHealth!(object) };
    case 'InterpretDependency':
      return { expected: sortDeps(output.dependencies ?? []), actual: sortDeps(await m.getDependencies!(object)) };
    default:
      throw new Error(`unsupported operation ${c.operation} in case ${c.name}`);
  }
}
