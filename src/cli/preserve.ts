// `preserve`: check state-preservation rules against what Karmada will really hold, i.e. the status
// our InterpretStatus reflects from the observed object, before a real failover tries them.
import { parseArgs } from 'node:util';
import type { KObject } from '../interpreter/types.ts';
import { evaluatePreservation, PreservationInputError, rulesFromPolicy, type PreservationResult } from '../preservation/index.ts';
import {
  formatMachine,
  OUTPUT_FLAG,
  outputFormat,
  readDocuments,
  readSingleDocument,
  REGISTRY_FLAGS,
  REGISTRY_FLAGS_HELP,
  runCommand,
  UsageError,
} from './common.ts';

export const help = `Usage: karmada-interpreter preserve --policy FILE --observed-file FILE [-o text|json|yaml]
         [--customizations DIR ...] [--examples NAMES] [--cluster NAME]

Runs InterpretStatus on the observed object (the workload as it is in the member cluster), then
evaluates every statePreservation rule against the reflected status with client-go JSONPath, exactly as
Karmada does when it builds an eviction task, and prints the labels the new cluster would receive.
Unlike Karmada, every rule is evaluated even when another one fails, and values that are not valid
label values (or aliases that are not valid label names) are reported as warnings.

  --policy FILE         a PropagationPolicy or ClusterPropagationPolicy (rules under
                        spec.failover.{application,cluster}.statePreservation.rules), a bare list of
                        {aliasLabelName, jsonPath}, or {rules: [...]}; YAML or JSON ('-' reads stdin)
  --observed-file FILE  the observed object (YAML or JSON)
  -o, --output FORMAT   text (default), json or yaml: {"labels": {...}, "errors": [...], "warnings": [...]}
${REGISTRY_FLAGS_HELP}
  --cluster NAME        the member cluster's name, used in messages (default: unknown)
Exits 1 when any rule fails (Karmada would not build the eviction task), 2 on wrong usage.
`;

export interface PreserveDeps {
  /** InterpretStatus with the same interpreters and precedence as the server. */
  reflect(obj: KObject): Promise<Record<string, any>>;
}

export async function run(args: string[], deps: PreserveDeps): Promise<number> {
  return runCommand('preserve', help, () => execute(args, deps), args);
}

async function execute(args: string[], deps: PreserveDeps): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      policy: { type: 'string' },
      'observed-file': { type: 'string' },
      ...OUTPUT_FLAG,
      ...REGISTRY_FLAGS,
      cluster: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(help);
    return 0;
  }
  if (!values.policy) throw new UsageError('--policy is required');
  if (!values['observed-file']) throw new UsageError('--observed-file is required');
  const format = outputFormat(values.output, ['text', 'json', 'yaml']);

  const docs = await readDocuments(values.policy);
  if (docs.length === 0) throw new PreservationInputError(`${values.policy}: no document found`);
  // Several documents (a policy file with other objects): take every policy among them.
  const rules = rulesFromPolicy(docs.length === 1 ? docs[0] : { kind: 'List', items: docs });
  const observed = await readSingleDocument(values['observed-file']);
  if (typeof observed.apiVersion !== 'string' || typeof observed.kind !== 'string') {
    throw new PreservationInputError(`${values['observed-file']}: the observed object needs apiVersion and kind`);
  }

  let status: Record<string, any>;
  try {
    status = await deps.reflect(observed);
  } catch (error) {
    throw new Error(`InterpretStatus failed for ${describe(observed)}: ${(error as Error).message}`, { cause: error });
  }
  const result = evaluatePreservation(rules, status, { clusterName: values.cluster });
  process.stdout.write(
    format === 'text' ? formatText(result, rules.length) : format === 'json' ? formatJson(result) : formatMachine(machineForm(result), 'yaml'),
  );
  return result.errors.length > 0 ? 1 : 0;
}

function describe(obj: KObject): string {
  const name = [obj.metadata?.namespace, obj.metadata?.name].filter(Boolean).join('/');
  return `${obj.kind}${name ? ` ${name}` : ''}`;
}

function machineForm(result: PreservationResult): Record<string, unknown> {
  return { labels: result.labels, errors: result.errors, warnings: result.warnings };
}

export function formatJson(result: PreservationResult): string {
  return formatMachine(machineForm(result), 'json');
}

export function formatText(result: PreservationResult, ruleCount: number): string {
  const lines: string[] = [];
  const labels = Object.entries(result.labels);
  lines.push(`Labels (${labels.length} of ${ruleCount} rules):`);
  for (const [name, value] of labels) lines.push(`  ${name}=${value}`);
  if (labels.length === 0) lines.push('  (none)');
  if (result.warnings.length > 0) {
    lines.push('Warnings:');
    for (const { aliasLabelName, message } of result.warnings) lines.push(`  ${aliasLabelName}: ${message}`);
  }
  if (result.errors.length > 0) {
    lines.push('Errors:');
    for (const { aliasLabelName, message } of result.errors) lines.push(`  ${aliasLabelName}: ${message}`);
    lines.push('Karmada stops at the first error and builds no eviction task, so no label is preserved until every rule succeeds.');
  }
  return `${lines.join('\n')}\n`;
}
