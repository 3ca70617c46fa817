// `check PATH...`: compile-check ResourceInterpreterCustomization files, like `karmadactl interpret --check`.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CustomizationRuntime } from '../customizations/interpreter.ts';
import { checkCustomizationFiles, checkReport } from '../customizations/check.ts';
import { asUsageError, formatMachine, OUTPUT_FLAG, outputFormat, UsageError } from './common.ts';

export const help = `Usage: karmada-interpreter check PATH...

Reads every ResourceInterpreterCustomization in the given files and directories (directories are walked
recursively for *.yaml, *.yml and *.json, skipping testdata/ and dot entries) and prints, per object,
SOURCE, TARGET and for each rule UNSET, PASS or ERROR: <message>, in the layout of
'karmadactl interpret --check'. Scripts are compiled in the same sandbox the server uses; whether they
define the right function is not checked (run the kind's testdata with 'test' for that). Lua errors
give the script line (as Karmada reports it) and the line of the file.

As 'kubectl apply' (strict field validation) and 'serve' do, a field the CRD does not declare
(healthInterpretations:, luaScrpt:) is an error naming it, with a suggestion. Objects of other kinds
(a Kustomization, a ConfigMap) are skipped with a WARNING, as 'serve' skips them; a misspelled kind or
a wrong apiVersion of a ResourceInterpreterCustomization is an error.

Exits 1 when any object is not a valid customization or any script does not compile, 2 on usage errors
(an unknown option, no PATH, a PATH that does not exist).

Options:
  -o, --output FORMAT   text (default: the layout above), json or yaml: {ok, objects: [{file, document,
                        name, target: {apiVersion, kind}, ok, rules: {OPERATION: UNSET|PASS|ERROR},
                        errors: {OPERATION: message}, error, warning}]} (an object skipped as another
                        kind has warning; one that is not a valid customization has error)
  -h, --help            show this help
`;

export interface CheckDeps {
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** The compiler to use; the real Lua runtime by default. */
  runtime?: Pick<CustomizationRuntime, 'compileCheck'> & { close?(): void };
}

export async function run(args: string[], deps: CheckDeps = {}): Promise<number> {
  const stdout = deps.stdout ?? ((text: string) => void process.stdout.write(text));
  const stderr = deps.stderr ?? ((text: string) => void process.stderr.write(text));
  try {
    return await execute(args, deps, stdout);
  } catch (error) {
    const usage = asUsageError(error, args);
    if (!usage) throw error;
    stderr(`check: ${usage.message}\n${usage.showHelp ? `\n${help}` : ''}`);
    return 2;
  }
}

async function execute(args: string[], deps: CheckDeps, stdout: (text: string) => void): Promise<number> {
  const parsed = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' }, ...OUTPUT_FLAG }, allowPositionals: true, strict: true });
  if (parsed.values.help) {
    stdout(help);
    return 0;
  }
  const format = outputFormat(parsed.values.output, ['text', 'json', 'yaml']);
  if (parsed.positionals.length === 0) throw new UsageError('at least one PATH is required');
  // A path that is not there is a wrong command line (exit 2, on stderr), not a finding of the check.
  for (const path of parsed.positionals) {
    if (!existsSync(path)) throw new UsageError(`${path}: no such file or directory`, { showHelp: false });
  }

  const runtime = deps.runtime ?? (await defaultRuntime());
  try {
    if (format !== 'text') {
      const { objects } = checkReport(parsed.positionals, runtime);
      stdout(formatMachine({ ok: objects.every((object) => object.ok), objects }, format));
      return objects.every((object) => object.ok) ? 0 : 1;
    }
    const { output, ok } = checkCustomizationFiles(parsed.positionals, runtime);
    stdout(output);
    return ok ? 0 : 1;
  } finally {
    if (!deps.runtime) runtime.close?.();
  }
}

async function defaultRuntime(): Promise<Pick<CustomizationRuntime, 'compileCheck'> & { close?(): void }> {
  const { LuaRuntime } = await import('../lua/runtime.ts');
  return new LuaRuntime({ poolSize: 1 });
}
