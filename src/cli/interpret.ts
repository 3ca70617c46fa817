// `interpret`: run one operation locally, like `karmadactl interpret`, through the server's dispatch.
// Input: an object and --operation, a request envelope as Karmada sends it, or one case of a
// Karmada-format testdata file.
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { interpret, type InterpretInput, type InterpretOutcome } from '../interpreter/dispatch.ts';
import type { LayerName } from '../interpreter/registry.ts';
import { caseInput, compareResults, expectationProblem, loadTestCases, resultsOf, type TestCase } from '../testcases/cases.ts';
import { OPERATIONS, type AggregatedStatusItem, type KObject, type Operation } from '../interpreter/types.ts';
import type { LuaKindInterpreter } from '../customizations/interpreter.ts';
import { interpretInputOf } from '../protocol/exchange.ts';
import type { InterpreterRequest } from '../protocol/wire.ts';
import { envelopeProblem } from '../protocol/schema.ts';
import {
  formatMachine,
  loadRegistry,
  OUTPUT_FLAG,
  outputFormat,
  readDocuments,
  readSingleDocument,
  REGISTRY_FLAGS,
  REGISTRY_FLAGS_HELP,
  runCommand,
  UsageError,
} from './common.ts';

export const help = `Usage: karmada-interpreter interpret --operation OP (--desired-file F | --observed-file F)
         [--observed-file F] [--status-file F] [--desired-replica N] [--customizations DIR ...]
         [-o text|json|yaml]
       karmada-interpreter interpret REQUEST.json          a ResourceInterpreterContext as Karmada sends it
       karmada-interpreter interpret TESTDATA.yaml [--case NAME]    a case of a Karmada-format testdata file

Runs OP (${OPERATIONS.join(', ')}; case-insensitive)
with the same interpreters and precedence as the server and prints each result as a YAML document
named as in Karmada's test cases (replica, requires, revised, retained, aggregatedStatus, status,
healthy, dependencies, components), after a comment saying which layer answered: the TypeScript
module, your customization (--customizations) or a shipped example (--examples).

  --desired-file F      the resource template (YAML or JSON; '-' reads stdin)
  --observed-file F     the member-cluster object; Retain needs both files, other operations one
  --status-file F       AggregateStatus: YAML/JSON documents, each an AggregatedStatusItem
                        ({clusterName, status, applied, health}); a document may also be a list
  --desired-replica N   ReviseReplica: the replicas for the member cluster
  FILE                  instead of the flags above: a request envelope (e.g. examples/requests/*.json)
                        or a Karmada testdata file (one case; --case NAME picks one of several, and
                        the result is compared with the case's output)
  --case NAME           with a testdata FILE: the case to run (its name: field)
  -o, --output FORMAT   text (default: the documents above), json or yaml: one object
                        {operation, apiVersion, kind, answeredBy: {layer, implementation, customizations,
                        files}, results: {replica, revised, ...}, case: {name, matches, problems}}
                        (case only for a testdata FILE)
${REGISTRY_FLAGS_HELP}
Exits 1 with the interpreter's message when the operation fails (or a case's output differs), 2 on
wrong usage (an unknown option, a missing or invalid argument, a file that does not exist).
`;

export async function run(args: string[]): Promise<number> {
  return runCommand('interpret', help, () => execute(args), args);
}

interface Job {
  input: InterpretInput;
  /** Set when the input came from a test case: its expected output is compared. */
  testCase?: TestCase;
}

async function execute(args: string[]): Promise<number> {
  const parsed = parseArgs({
    args,
    options: {
      operation: { type: 'string' },
      'desired-file': { type: 'string' },
      'observed-file': { type: 'string' },
      'status-file': { type: 'string', multiple: true },
      'desired-replica': { type: 'string' },
      case: { type: 'string' },
      ...OUTPUT_FLAG,
      ...REGISTRY_FLAGS,
    },
    allowPositionals: true,
  });
  const v = parsed.values;
  const format = outputFormat(v.output, ['text', 'json', 'yaml']);
  let job: Job;
  if (parsed.positionals.length > 0) {
    if (parsed.positionals.length > 1) throw new UsageError(`give one FILE, got ${parsed.positionals.length}`);
    const objectFlags = ['operation', 'desired-file', 'observed-file', 'status-file', 'desired-replica'] as const;
    const given = objectFlags.filter((flag) => v[flag] !== undefined);
    if (given.length > 0) throw new UsageError(`FILE carries the whole call: drop --${given.join(', --')}`);
    job = await jobFromFile(parsed.positionals[0]!, v.case);
  } else {
    if (v.case !== undefined) throw new UsageError('--case goes with a testdata FILE');
    job = { input: await inputFromFlags(v) };
  }

  const loaded = await loadRegistry(v);
  try {
    const outcome = await interpret(loaded.registry, job.input);
    if (!outcome.ok) {
      process.stderr.write(`Execute ${job.input.operation} error (code ${outcome.code}): ${outcome.message}\n`);
      if (outcome.cause) process.stderr.write(`${(outcome.cause as Error).stack ?? String(outcome.cause)}\n`);
      return 1;
    }
    const resolved = loaded.registry.resolve(job.input.apiVersion, job.input.kind, job.input.operation as Operation);
    const interpreter = resolved?.interpreter as Partial<LuaKindInterpreter> | undefined;
    const results = resultsOf(outcome.result);
    let verdict: { name: string; matches: boolean; problems: string[] } | undefined;
    if (job.testCase) {
      const refused = expectationProblem(job.testCase.output);
      const problems = refused !== undefined ? [refused] : compareResults(job.testCase.output ?? {}, results);
      verdict = { name: job.testCase.name, matches: problems.length === 0, problems };
    }
    if (format === 'text') {
      const entries = Object.entries(results);
      const docs = entries.map(([name, value], i) => `---\n# [${i + 1}/${entries.length}] ${name}:\n${stringify(value ?? null)}`);
      process.stdout.write(`# answered by ${answeredBy(outcome, interpreter)}\n${docs.join('')}`);
    } else {
      process.stdout.write(
        formatMachine(
          {
            operation: job.input.operation,
            apiVersion: job.input.apiVersion,
            kind: job.input.kind,
            answeredBy: { layer: outcome.layer, implementation: outcome.implementation, ...answeredByDetails(interpreter) },
            results,
            ...(verdict ? { case: verdict } : {}),
          },
          format,
        ),
      );
    }
    if (verdict) {
      const name = JSON.stringify(verdict.name);
      if (!verdict.matches) {
        const refused = expectationProblem(job.testCase!.output);
        process.stderr.write(
          refused !== undefined ? `case ${name}: ${refused}\n` : `case ${name}: the result differs from its output:\n  ${verdict.problems.join('\n  ')}\n`,
        );
        return 1;
      }
      process.stderr.write(`case ${name}: the result matches its output\n`);
    }
    return 0;
  } finally {
    await loaded.close();
  }
}

const LAYER_TEXT: Record<LayerName, string> = {
  'user-lua': 'your customization',
  'builtin-ts': 'the TypeScript module',
  'builtin-lua': 'the shipped example',
};

/** The customizations (and their files) that answered, for -o json|yaml. */
function answeredByDetails(interpreter: Partial<LuaKindInterpreter> | undefined): { customizations?: string[]; files?: string[] } {
  return {
    ...(interpreter?.customizations?.length ? { customizations: interpreter.customizations } : {}),
    ...(interpreter?.files?.length ? { files: interpreter.files } : {}),
  };
}

/** "your customization my-ric (/path/ric.yaml)", "the TypeScript module typescript:CloneSet", ... */
function answeredBy(outcome: Extract<InterpretOutcome, { ok: true }>, interpreter: Partial<LuaKindInterpreter> | undefined): string {
  const files = interpreter?.files?.length ? ` (${interpreter.files.join(', ')})` : '';
  const name = interpreter?.customizations?.length ? interpreter.customizations.join(', ') : outcome.implementation;
  return `${LAYER_TEXT[outcome.layer]} ${name}${files}`;
}

async function inputFromFlags(v: {
  operation?: string;
  'desired-file'?: string;
  'observed-file'?: string;
  'status-file'?: string[];
  'desired-replica'?: string;
}): Promise<InterpretInput> {
  const operation = OPERATIONS.find((op) => op.toLowerCase() === (v.operation ?? '').toLowerCase()) as Operation | undefined;
  if (!v.operation) throw new UsageError('--operation is required (or give a request or testdata FILE)');
  if (!operation) throw new UsageError(`--operation ${v.operation} is not one of ${OPERATIONS.join(', ')}`);
  const desired = v['desired-file'] ? await readObjectFile(v['desired-file'], '--desired-file') : undefined;
  const observed = v['observed-file'] ? await readObjectFile(v['observed-file'], '--observed-file') : undefined;
  let object: KObject;
  if (operation === 'Retain') {
    if (!desired || !observed) throw new UsageError('Retain needs both --desired-file and --observed-file');
    object = desired;
  } else {
    if (desired && observed) throw new UsageError(`${operation} takes one of --desired-file or --observed-file, not both`);
    if (!desired && !observed) throw new UsageError(`${operation} needs --desired-file or --observed-file`);
    object = (desired ?? observed)!;
  }
  let replicas = 0;
  if (operation === 'ReviseReplica') {
    replicas = Number(v['desired-replica']);
    if (v['desired-replica'] === undefined || !Number.isInteger(replicas) || replicas < 0)
      throw new UsageError('ReviseReplica needs --desired-replica N (a whole number >= 0)');
  }
  let items: AggregatedStatusItem[] | undefined;
  if (operation === 'AggregateStatus' && v['status-file']) {
    items = [];
    for (const file of v['status-file'])
      for (const doc of await readDocuments(file)) items.push(...((Array.isArray(doc) ? doc : [doc]) as AggregatedStatusItem[]));
  }
  return {
    apiVersion: String(object.apiVersion ?? ''),
    kind: String(object.kind ?? ''),
    operation,
    object,
    observedObject: operation === 'Retain' ? observed : undefined,
    replicas,
    aggregatedStatus: items,
  };
}

/** One object; a request envelope or a testdata file given here gets a pointer to the FILE form. */
async function readObjectFile(path: string, flag: string): Promise<KObject> {
  const docs = path === '-' ? undefined : await readDocuments(path);
  if (docs && docs.length > 0) {
    const first = docs[0] as Record<string, unknown> | null;
    if (isEnvelope(first))
      throw new UsageError(
        `${flag} ${path} is a ResourceInterpreterContext (a request as Karmada sends it): run 'interpret ${path}' without --operation and the file flags`,
        { showHelp: false },
      );
    if (isTestCase(first))
      throw new UsageError(`${flag} ${path} is a Karmada-format testdata file: run 'interpret ${path} [--case NAME]' without --operation and the file flags`, {
        showHelp: false,
      });
  }
  return readSingleDocument(path);
}

function isEnvelope(doc: unknown): doc is Record<string, unknown> {
  return typeof doc === 'object' && doc !== null && (doc as Record<string, unknown>).kind === 'ResourceInterpreterContext';
}

function isTestCase(doc: unknown): boolean {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return false;
  const keys = Object.keys(doc).map((key) => key.toLowerCase());
  return keys.includes('operation') && (keys.includes('desiredobj') || keys.includes('observedobj'));
}

async function jobFromFile(path: string, caseName: string | undefined): Promise<Job> {
  const docs = await readDocuments(path);
  if (docs.length === 1 && isEnvelope(docs[0])) {
    if (caseName !== undefined) throw new UsageError(`${path} is a request envelope: --case is for testdata files`);
    return { input: inputFromEnvelope(docs[0], path) };
  }
  if (!docs.some(isTestCase)) {
    throw new UsageError(
      `${path} is neither a ResourceInterpreterContext request nor a Karmada testdata file (documents with operation and desiredObj or observedObj); for a plain object use --operation OP --desired-file ${path}`,
      { showHelp: false },
    );
  }
  const cases = await loadTestCases(path);
  const names = cases.map((tc) => tc.name);
  let testCase: TestCase | undefined;
  if (caseName !== undefined) {
    testCase = cases.find((tc) => tc.name === caseName) ?? cases.find((tc) => tc.name.toLowerCase() === caseName.toLowerCase());
    if (!testCase) throw new UsageError(`${path} has no case named ${JSON.stringify(caseName)}; its cases:\n  ${names.join('\n  ')}`, { showHelp: false });
  } else if (cases.length === 1) {
    testCase = cases[0]!;
  } else {
    throw new UsageError(`${path} has ${cases.length} cases: pick one with --case NAME:\n  ${names.join('\n  ')}`, { showHelp: false });
  }
  const input = caseInput(testCase);
  if (typeof input === 'string') throw new Error(`case ${JSON.stringify(testCase.name)}: ${input}`);
  return { input, testCase };
}

function inputFromEnvelope(doc: Record<string, unknown>, path: string): InterpretInput {
  const problem = envelopeProblem(doc);
  if (problem) throw new Error(`${path}: ${problem}`);
  return interpretInputOf(doc.request as InterpreterRequest);
}
