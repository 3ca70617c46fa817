// `replay`: what this build (or a running server) would answer differently for recorded traffic.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { asUsageError, formatMachine, loadRegistry, REGISTRY_FLAGS, runCommand, usageError as reportUsageError, UsageError } from './common.ts';
import { formatDifference } from '../record/response-comparison.ts';
import { listExchangeFiles } from '../record/format.ts';
import { inProcessTarget, replayFiles, urlTarget, type ReplaySummary, type ReplayTarget } from '../record/replay.ts';

export const help = `Usage: karmada-interpreter replay PATH... [--url URL [--ca-file F]] [--customizations DIR ...] [-o text|json|yaml] [--update]

Sends every recorded request (each *.json under PATH, in sorted order) again - to this build in
process by default, through the server's own request handling, or to a running server with --url -
and compares the new response with the recorded one the way Karmada would use it: patches by the
object they produce from the recorded request.object, quantities by value (1 = 1000m), dependencies
as a set, key order ignored. Prints each changed exchange with one line per difference
("path: old → new") and ends with "N unchanged, M changed". Exit code 1 when anything changed or
could not be replayed.

Options:
  --url URL               a running server's interpreter URL (e.g. https://localhost:8443/interpret)
  --ca-file F             CA bundle to trust for --url (default: the system CAs)
  --customizations DIR    your ResourceInterpreterCustomization folder(s) for the in-process build
                          (repeatable); use it to see what an edited Lua script changes
  --examples NAMES        shipped Lua examples the in-process build serves (all, or kinds such as
                          Rollout.argoproj.io); give what the recording server was given
  -o, --output FORMAT     report format: text (default), json or yaml (the same object)
  --update                write the new responses into the changed files (re-record); review the diff
`;

export async function run(args: string[]): Promise<number> {
  return runCommand('replay', help, () => execute(args), args);
}

async function execute(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        url: { type: 'string' },
        'ca-file': { type: 'string' },
        ...REGISTRY_FLAGS,
        output: { type: 'string', short: 'o', default: 'text' },
        update: { type: 'boolean', default: false },
      },
      allowPositionals: true,
    });
  } catch (error) {
    return usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length === 0) return usageError('give at least one recorded file or folder');
  if (!['text', 'json', 'yaml'].includes(values.output)) return usageError(`-o ${values.output}: expected text, json or yaml`);
  if (values.url && (values.customizations?.length || values.examples?.length))
    return usageError('--customizations and --examples apply to the in-process build; a --url server has its own');
  if (values['ca-file'] && !values.url) return usageError('--ca-file needs --url');

  let files: string[];
  try {
    files = await listExchangeFiles(positionals, (path, reason) => process.stderr.write(`replay: skipped ${path}: ${reason}\n`));
  } catch (error) {
    return usageError(asUsageError(error, positionals)?.message ?? (error as Error).message);
  }
  if (files.length === 0) return usageError(`no *.json files under ${positionals.join(', ')}`);
  let target: ReplayTarget;
  let close = () => {};
  if (values.url) {
    target = urlTarget(values.url, { ca: values['ca-file'] ? await readFile(values['ca-file'], 'utf8') : undefined });
  } else {
    let loaded: Awaited<ReturnType<typeof loadRegistry>>;
    try {
      loaded = await loadRegistry(values);
    } catch (error) {
      if (error instanceof UsageError) return usageError(error.message);
      throw error;
    }
    target = inProcessTarget(loaded.registry);
    close = () => void loaded.close();
  }
  try {
    const result = await replayFiles(files, target, { update: values.update });
    process.stdout.write(values.output === 'text' ? formatReport(result) : formatMachine(result, values.output as 'json' | 'yaml'));
    return result.changed > 0 || result.errors > 0 ? 1 : 0;
  } finally {
    target.close();
    close();
  }
}

export function formatReport(summary: ReplaySummary): string {
  const lines: string[] = [];
  for (const result of summary.results) {
    if (result.status === 'unchanged') continue;
    if (result.status === 'error') {
      lines.push(`ERROR ${result.file}${result.subject ? ` (${result.subject})` : ''}: ${result.error}`);
      continue;
    }
    const caveat = result.redactedValues ? `; ${result.redactedValues} value(s) were redacted when recording, which may cause this` : '';
    lines.push(`${result.status.toUpperCase()} ${result.file} (${result.subject}): ${result.differences.length} difference(s)${caveat}`);
    for (const difference of result.differences) lines.push(`  ${formatDifference(difference)}`);
  }
  const counts = [`${summary.unchanged} unchanged`, summary.updated > 0 ? `${summary.updated} updated` : `${summary.changed} changed`];
  if (summary.errors > 0) counts.push(`${summary.errors} failed to replay`);
  lines.push(counts.join(', '));
  return lines.join('\n') + '\n';
}

function usageError(message: string): number {
  return reportUsageError('replay', message, help);
}
