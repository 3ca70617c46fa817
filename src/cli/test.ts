// `test`: runs Karmada-format test cases in every testdata/ folder through our dispatch.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { customizationsBesideTestdata, findTestdataFiles, formatSummary, runCaseInProcess, runTestFiles } from '../testcases/runner.ts';
import { shippedExamples } from '../customizations/examples.ts';
import { caseInput } from '../testcases/cases.ts';
import { formatMachine, loadRegistry, OUTPUT_FLAG, outputFormat, REGISTRY_FLAGS, REGISTRY_FLAGS_HELP, runCommand, UsageError } from './common.ts';

export const help = `Usage: karmada-interpreter test [PATH ...] [--customizations DIR ...] [--examples NAMES] [-o text|json|yaml]

Runs every case (one YAML document each: name, desiredObj|observedObj, statusItems, inputReplicas,
operation, output) in every testdata/ folder under PATH (default: interpreters/), with the same
precedence as the server (user customizations > built-in TypeScript > shipped Lua examples), and
compares results the way Karmada's own harness does. Prints one line per failure and ends with
"N passed, M failed"; exits 1 when anything failed or no case was found, 2 on wrong usage.
A customizations.yaml beside a testdata/ folder (Karmada's layout: <group>/<version>/<Kind>/) is
loaded as a user customization, like --customizations: the cases test that script. For the shipped
examples' own folders (interpreters/**), that example is enabled instead. Cases of a kind nothing
interprets fail, and a hint on stderr names the kinds: give their customization with --customizations.

  -o, --output FORMAT   text (default: the lines above), json or yaml: {passed, failed, skipped,
                        failures: [{file, name, problems}], passedCases: [{file, name}], unservedKinds}

${REGISTRY_FLAGS_HELP}
`;

export async function run(args: string[]): Promise<number> {
  return runCommand('test', help, () => execute(args), args);
}

async function execute(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { ...REGISTRY_FLAGS, ...OUTPUT_FLAG }, allowPositionals: true });
  const format = outputFormat(values.output, ['text', 'json', 'yaml']);
  const paths = positionals.length > 0 ? positionals : ['interpreters'];
  for (const path of paths) {
    if (!existsSync(path)) {
      throw new UsageError(
        positionals.length > 0
          ? `${path}: no such file or directory`
          : 'no PATH given and no interpreters/ folder here: give the folder that holds your testdata/',
        { showHelp: false },
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
    // Kinds of cases that nothing here interprets: most often the customization was not given.
    const unserved = new Map<string, number>();
    const result = await runTestFiles(files, (tc) => {
      const input = caseInput(tc);
      if (typeof input !== 'string' && !loaded.registry.serves(input.apiVersion, input.kind)) {
        const kind = `${input.apiVersion} ${input.kind}`;
        unserved.set(kind, (unserved.get(kind) ?? 0) + 1);
      }
      return runCaseInProcess(loaded.registry, tc);
    });
    process.stdout.write(
      format === 'text'
        ? formatSummary(result)
        : formatMachine(
            {
              passed: result.passed,
              failed: result.failed.length,
              skipped: result.skipped,
              failures: result.failed,
              passedCases: result.passedCases,
              unservedKinds: [...unserved.keys()],
            },
            format,
          ),
    );
    if (unserved.size > 0) process.stderr.write(noCustomizationHint(unserved));
    if (result.passed + result.failed.length === 0) {
      process.stderr.write(`test: no case ran: the testdata files under ${paths.join(', ')} hold no documents\n`);
      return 1;
    }
    return result.failed.length === 0 ? 0 : 1;
  } finally {
    await loaded.close();
  }
}

/** The hint for cases whose kind no interpreter serves: the customization they test was not loaded. */
function noCustomizationHint(unserved: Map<string, number>): string {
  const kinds = [...unserved].map(([kind, cases]) => `${kind} (${cases} case${cases === 1 ? '' : 's'})`).join(', ');
  return (
    `test: no customization interprets ${kinds}: give the ResourceInterpreterCustomization for ${unserved.size === 1 ? 'it' : 'them'} ` +
    `with --customizations FILE|DIR (or put it beside the testdata/ folder as customizations.yaml)\n`
  );
}
