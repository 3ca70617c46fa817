// `check PATH...`: compile-check ResourceInterpreterCustomization files, like `karmadactl interpret --check`.
import { parseArgs } from 'node:util';
import type { CustomizationRuntime } from '../customizations/interpreter.ts';
import { checkCustomizationFiles } from '../customizations/check.ts';

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

Exits 1 when any object is not a valid customization or any script does not compile, 2 on usage errors.

Options:
  -h, --help   show this help
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
  let parsed;
  try {
    parsed = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    stderr(`check: ${(err as Error).message}\n\n${help}`);
    return 2;
  }
  if (parsed.values.help) {
    stdout(help);
    return 0;
  }
  if (parsed.positionals.length === 0) {
    stderr(`check: at least one PATH is required\n\n${help}`);
    return 2;
  }

  const runtime = deps.runtime ?? (await defaultRuntime());
  try {
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
