// `interpret`: run one operation locally, like `karmadactl interpret`, through the server's dispatch.
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { interpret } from '../interpreter/dispatch.ts';
import { createRegistry } from '../interpreter/setup.ts';
import { resultsOf } from '../interpreter/testcases.ts';
import { OPERATIONS, type AggregatedStatusItem, type KObject, type Operation } from '../interpreter/types.ts';
import { readDocuments, readSingleDocument, UsageError } from './common.ts';

export const summary = 'run one interpreter operation on local files (like karmadactl interpret)';
export const help = `Usage: karmada-interpreter interpret --operation OP (--desired-file F | --observed-file F)
         [--observed-file F] [--status-file F] [--desired-replica N] [--customizations DIR ...]

Runs OP (${OPERATIONS.join(', ')}; case-insensitive)
with the same interpreters and precedence as the server and prints each result as a YAML document
named as in Karmada's test cases (replica, requires, revised, retained, aggregatedStatus, status,
healthy, dependencies, components).

  --desired-file F      the resource template (YAML or JSON; '-' reads stdin)
  --observed-file F     the member-cluster object; Retain needs both files, other operations one
  --status-file F       AggregateStatus: YAML/JSON documents, each an AggregatedStatusItem
                        ({clusterName, status, applied, health}); a document may also be a list
  --desired-replica N   ReviseReplica: the replicas for the member cluster
  --customizations DIR  directories of ResourceInterpreterCustomization files (repeatable)
Exits 1 with the interpreter's message when the operation fails, 2 on wrong usage.
`;

export async function run(args: string[]): Promise<number> {
  try {
    return await execute(args);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`interpret: ${error.message}\n\n${help}`);
      return 2;
    }
    process.stderr.write(`interpret: ${(error as Error).message}\n`);
    return 1;
  }
}

async function execute(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        operation: { type: 'string' },
        'desired-file': { type: 'string' },
        'observed-file': { type: 'string' },
        'status-file': { type: 'string', multiple: true },
        'desired-replica': { type: 'string' },
        customizations: { type: 'string', multiple: true },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const v = parsed.values;
  const operation = OPERATIONS.find((op) => op.toLowerCase() === (v.operation ?? '').toLowerCase()) as Operation | undefined;
  if (!v.operation) throw new UsageError('--operation is required');
  if (!operation) throw new UsageError(`--operation ${v.operation} is not one of ${OPERATIONS.join(', ')}`);
  const desired = v['desired-file'] ? await readSingleDocument(v['desired-file']) : undefined;
  const observed = v['observed-file'] ? await readSingleDocument(v['observed-file']) : undefined;
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
    if (v['desired-replica'] === undefined || !Number.isInteger(replicas) || replicas < 0) throw new UsageError('ReviseReplica needs --desired-replica N (a whole number >= 0)');
  }
  let items: AggregatedStatusItem[] | undefined;
  if (operation === 'AggregateStatus' && v['status-file']) {
    items = [];
    for (const file of v['status-file']) for (const doc of await readDocuments(file)) items.push(...((Array.isArray(doc) ? doc : [doc]) as AggregatedStatusItem[]));
  }
  const loaded = await createRegistry({ customizations: v.customizations ?? [] });
  try {
    for (const p of loaded.problems) process.stderr.write(`warning: ${p.file}: ${p.message}\n`);
    const outcome = await interpret(loaded.registry, {
      apiVersion: String(object.apiVersion ?? ''),
      kind: String(object.kind ?? ''),
      operation,
      object,
      observedObject: operation === 'Retain' ? observed : undefined,
      replicas,
      aggregatedStatus: items,
    });
    if (!outcome.ok) {
      process.stderr.write(`Execute ${operation} error (code ${outcome.code}): ${outcome.message}\n`);
      if (outcome.cause) process.stderr.write(`${(outcome.cause as Error).stack ?? String(outcome.cause)}\n`);
      return 1;
    }
    const results = Object.entries(resultsOf(outcome.result));
    const docs = results.map(([name, value], i) => `---\n# [${i + 1}/${results.length}] ${name}:\n${stringify(value ?? null)}`);
    process.stdout.write(docs.join(''));
    return 0;
  } finally {
    loaded.close();
  }
}
