// Bringing real cases into the playground and taking what is on screen out: Karmada-format testdata
// (read with the `test` command's own loader), recorded exchanges (`serve --record`), request envelopes;
// out as a testdata file that `karmada-interpreter test` passes and as a curl command.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { InterpretInput } from '../interpreter/dispatch.ts';
import type { AggregatedStatusItem, KObject, Operation } from '../interpreter/types.ts';
import { readYamlDocuments } from '../k8s/yaml-documents.ts';
import { karmadaRequest } from '../protocol/karmada-client.ts';
import { envelopeProblem } from '../protocol/schema.ts';
import { interpretInputOf } from '../protocol/exchange.ts';
import type { InterpreterRequest } from '../protocol/wire.ts';
import { caseOperation, loadTestCases, type TestCase } from '../testcases/cases.ts';
import { findTestdataFiles } from '../testcases/runner.ts';
import type { PageInputs, Sample } from './api.ts';
import { yamlText, type RunResponse } from './engine.ts';

export type { PageInputs, Sample } from './api.ts';

/** Cases from a file's text: a testdata file (every case), a recorded exchange or a request envelope (one). */
export async function importText(text: string): Promise<{ cases: PageInputs[] } | { error: string }> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: a YAML testdata file (or a YAML envelope, read below)
  }
  const docs = json !== undefined ? [json] : readYamlDocuments(text, { maxAliasCount: 100 }).map((doc) => doc.value);
  const first = docs[0] as Record<string, unknown> | undefined;
  const envelope = first && typeof first === 'object' && 'request' in first && 'response' in first ? first.request : first;
  if (envelope && typeof envelope === 'object' && (envelope as Record<string, unknown>).kind === 'ResourceInterpreterContext') {
    const problem = envelopeProblem(envelope);
    if (problem) return { error: problem };
    const input = interpretInputOf((envelope as { request: InterpreterRequest }).request);
    const recorded = envelope !== first ? 'recorded exchange' : 'request';
    return { cases: [inputsOf(`${recorded} ${input.operation}`, input)] };
  }
  const dir = await mkdtemp(join(tmpdir(), 'karmada-playground-'));
  try {
    const file = join(dir, 'testdata.yaml');
    await writeFile(file, text);
    const cases = (await loadTestCases(file)).filter((tc) => tc.loadError === undefined && (tc.desiredObj || tc.observedObj));
    if (cases.length === 0) {
      return { error: 'neither a Karmada testdata file (documents with operation and desiredObj or observedObj), a recorded exchange nor a request envelope' };
    }
    return { cases: cases.map(caseInputs) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function caseInputs(tc: TestCase): PageInputs {
  const operation = caseOperation(tc) ?? tc.operation;
  const statusItems = tc.statusItems?.map((item) => yamlText(item));
  return {
    name: tc.name,
    operation,
    ...templateAndMember(tc.desiredObj, tc.observedObj),
    ...(statusItems ? { statusItems } : {}),
    ...(tc.inputReplicas !== undefined ? { replicas: Number(tc.inputReplicas) } : {}),
  };
}

function inputsOf(name: string, input: InterpretInput): PageInputs {
  const memberOps = ['InterpretStatus', 'InterpretHealth'];
  const isMember = memberOps.includes(input.operation);
  return {
    name,
    operation: input.operation,
    ...templateAndMember(isMember ? undefined : input.object, isMember ? input.object : input.observedObject),
    ...(input.aggregatedStatus ? { statusItems: input.aggregatedStatus.map((item) => yamlText(item)) } : {}),
    ...(input.operation === 'ReviseReplica' ? { replicas: input.replicas ?? 0 } : {}),
  };
}

/** A case without a template still names the kind: the member's object, without its status, stands in. */
function templateAndMember(desired: KObject | undefined, observed: KObject | undefined): { template?: string; member?: string } {
  const stand = observed ? (({ status: _status, ...rest }) => rest)(observed) : undefined;
  const template = desired ?? stand;
  return { ...(template ? { template: yamlText(template) } : {}), ...(observed ? { member: yamlText(observed) } : {}) };
}

/** A sample for the kind picker: a testdata file of a kind, and the default inputs made from it. */

/** Testdata and example requests under the given folders, by kind; what the picker offers and /api/sample reads. */
export class SampleLibrary {
  private readonly files = new Map<string, { path: string; sample: Sample }>();

  static async find(roots: ReadonlyArray<{ dir: string; label: string }>, requests: string[]): Promise<SampleLibrary> {
    const library = new SampleLibrary();
    for (const root of roots) {
      const files = await findTestdataFiles([root.dir]).catch(() => [] as string[]);
      for (const path of files) {
        const cases = await loadTestCases(path).catch(() => [] as TestCase[]);
        const object = cases.map((tc) => tc.desiredObj ?? tc.observedObj).find((o) => o && typeof o.kind === 'string');
        if (!object) continue;
        const file = `${root.label}/${relative(root.dir, path)}`;
        library.files.set(file, {
          path,
          sample: {
            apiVersion: String(object.apiVersion ?? ''),
            kind: String(object.kind),
            file,
            cases: cases.filter((tc) => !tc.loadError).map((tc) => tc.name),
          },
        });
      }
    }
    for (const path of requests) {
      const text = await readFile(path, 'utf8').catch(() => undefined);
      const request = text === undefined ? undefined : (safeJson(text) as { request?: InterpreterRequest } | undefined)?.request;
      if (!request?.kind?.kind) continue;
      const apiVersion = request.kind.group ? `${request.kind.group}/${request.kind.version}` : request.kind.version;
      const file = `examples/requests/${path.split('/').pop()}`;
      library.files.set(file, { path, sample: { apiVersion, kind: request.kind.kind, file, cases: [`request ${request.operation}`] } });
    }
    return library;
  }

  list(): Sample[] {
    return [...this.files.values()].map((entry) => entry.sample);
  }

  /**
   * Inputs to start from for a kind: a template from a case that reads one (InterpretReplica first), the
   * member object of a health case that passes, and the status items of an AggregateStatus case.
   */
  async defaults(apiVersion: string, kind: string): Promise<PageInputs> {
    const cases: PageInputs[] = [];
    for (const entry of this.files.values()) {
      if (entry.sample.apiVersion !== apiVersion || entry.sample.kind !== kind) continue;
      const read = await this.read(entry.sample.file);
      if ('cases' in read) cases.push(...read.cases);
    }
    const byOperation = (operation: string) => cases.filter((c) => c.operation === operation);
    const withTemplate = [...byOperation('InterpretReplica'), ...cases].find(
      (c) => c.template && c.operation !== 'InterpretHealth' && c.operation !== 'InterpretStatus',
    );
    const withMember = [...byOperation('InterpretHealth'), ...byOperation('InterpretStatus'), ...cases].find((c) => c.member);
    const withItems = byOperation('AggregateStatus').find((c) => c.statusItems && c.statusItems.length > 0);
    return {
      name: `${kind} samples`,
      template: withTemplate?.template ?? withMember?.template ?? yamlText({ apiVersion, kind, metadata: { name: 'example', namespace: 'default' }, spec: {} }),
      member: withMember?.member ?? '',
      statusItems: withItems?.statusItems ?? [],
      replicas: 1,
    };
  }

  /** The cases of one listed file (only files this library found: the page names them, never a path). */
  async read(file: string): Promise<{ cases: PageInputs[] } | { error: string }> {
    const entry = this.files.get(file);
    if (!entry) return { error: `no sample ${JSON.stringify(file)}` };
    return importText(await readFile(entry.path, 'utf8'));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const MEMBER_OPERATIONS: readonly Operation[] = ['InterpretStatus', 'InterpretHealth'];

/**
 * What is on screen as a Karmada testdata file: one case per operation that answered, its output the
 * answer, so `karmada-interpreter test` passes it with the same customizations.
 */
export function exportTestdata(inputs: Record<string, InterpretInput>, run: RunResponse, items: AggregatedStatusItem[] | undefined): string {
  const docs: string[] = [];
  for (const answer of run.operations) {
    if (!answer.ok || !answer.results) continue;
    const input = inputs[answer.operation];
    if (!input) continue;
    const onMember = MEMBER_OPERATIONS.includes(answer.operation);
    const doc: Record<string, unknown> = {
      name: `${run.kind} ${answer.operation}`,
      description: `exported from the playground (answered by ${answer.answeredBy})`,
      ...(onMember ? { observedObj: input.object } : { desiredObj: input.object }),
      ...(answer.operation === 'Retain' ? { observedObj: input.observedObject } : {}),
      ...(answer.operation === 'AggregateStatus' && items ? { statusItems: items } : {}),
      ...(answer.operation === 'ReviseReplica' ? { inputReplicas: input.replicas } : {}),
      operation: answer.operation,
      output: answer.results,
    };
    docs.push(yamlText(doc));
  }
  return docs.map((doc) => `---\n${doc}`).join('');
}

/** A curl command that asks a running server the same question, as Karmada's webhook client would. */
export function curlCommand(input: InterpretInput, url = 'https://localhost:8443/interpret?timeout=3s'): string {
  const body = JSON.stringify(karmadaRequest(input, 'playground-0000'));
  return [`curl --cacert "$CA" -H 'Content-Type: application/json' --data-binary @- '${url}' <<'EOF'`, body, 'EOF'].join('\n');
}
