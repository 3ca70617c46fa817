// `test`: runs Karmada-format test cases in every testdata/ folder through our dispatch.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { customizationsBesideTestdata, findTestdataFiles, formatSummary, runCaseInProcess, runTestFiles } from '../testcases/runner.ts';
import { shippedExamples } from '../customizations/examples.ts';
import { loadRegistry, REGISTRY_FLAGS, REGISTRY_FLAGS_HELP, UsageError } from './common.ts';

export const help = `Usage: karmada-interpreter test [PATH ...] [--customizations DIR ...] [--examples NAMES]

Runs every case (one YAML document each: name, desiredObj|observedObj, statusItems, inputReplicas,
operation, output) in every testdata/ folder under PATH (default: interpreters/), with the same
precedence as the server (user customizations > built-in TypeScript > shipped Lua examples), and
compares results the way Karmada's own harness does. Prints one line per failure and ends with
"N passed, M failed"; exits 1 when anything failed or no case was found, 2 on wrong usage.
A customizations.yaml beside a testdata/ folder (Karmada's layout: <group>/<version>/<Kind>/) is
loaded as a user customization, like --customizations: the cases test that script. For the shipped
examples' own folders (interpreters/**), that example is enabled instead.

${REGISTRY_FLAGS_HELP}
`;

export async function run(args: string[]): Promise<number> {
  try {
    return await execute(args);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`test: ${(error as Error).message}\n\n${help}`);
      return 2;
    }
    throw error;
  }
}

async function execute(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { ...REGISTRY_FLAGS }, allowPositionals: true });
  const paths = positionals.length > 0 ? positionals : ['interpreters'];
  for (const path of paths) {
    if (!existsSync(path)) {
      throw new UsageError(
        positionals.length > 0
          ? `${path}: no such file or directory`
          : 'no PATH given and no interpreters/ folder here: give the folder that holds your testdata/',
      );
    }
  }
  const files = await findTestdataFiles(paths);
  if (files.length === 0) {
    process.stderr.write(`test: no test cases: no *.yaml, *.yml or *.json file inside a testdata/ folder under ${paths.join(', ')}\n`);
    return 1;
  }
  // The shipped examples beside these cases are enabled as examples (their own layer, below our
  // TypeScript modules); any other customizations.yaml beside testdata is the user's.
  const examples = new Map(shippedExamples().map((example) => [resolve(example.file), example.name]));
  const beside = await customizationsBesideTestdata(files);
  const besideExamples = beside.flatMap((file) => examples.get(resolve(file)) ?? []);
  const besideUser = beside.filter((file) => !examples.has(resolve(file)));
  const loaded = await loadRegistry({
    customizations: [...(values.customizations ?? []), ...besideUser],
    examples: [...(values.examples ?? (process.env.KARMADA_INTERPRETER_EXAMPLES ? [process.env.KARMADA_INTERPRETER_EXAMPLES] : [])), ...besideExamples],
  });
  try {
    if (besideUser.length > 0) process.stderr.write(`test: using the customizations beside the cases: ${besideUser.join(', ')}\n`);
    if (besideExamples.length > 0) process.stderr.write(`test: enabled the shipped examples these cases test: ${besideExamples.join(', ')}\n`);
    const result = await runTestFiles(files, (tc) => runCaseInProcess(loaded.registry, tc));
    process.stdout.write(formatSummary(result));
    if (result.passed + result.failed.length === 0) {
      process.stderr.write(`test: no case ran: the testdata files under ${paths.join(', ')} hold no documents\n`);
      return 1;
    }
    return result.failed.length === 0 ? 0 : 1;
  } finally {
    await loaded.close();
  }
}
