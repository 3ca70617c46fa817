// `test`: runs Karmada-format test cases in every testdata/ folder through our dispatch.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createRegistry } from '../interpreter/setup.ts';
import { customizationsBesideTestdata, findTestdataFiles, formatSummary, runCaseInProcess, runTestFiles } from '../interpreter/testrunner.ts';
import { findBuiltinCustomizationFiles } from '../lua/files.ts';

export const summary = 'run Karmada-format test cases (testdata/*.yaml) against our interpreters';
export const help = `Usage: karmada-interpreter test [PATH ...] [--customizations DIR ...]

Runs every case (one YAML document each: name, desiredObj|observedObj, statusItems, inputReplicas,
operation, output) in every testdata/ folder under PATH (default: interpreters/), with the same
precedence as the server (user customizations > built-in TypeScript > built-in Lua), and compares
results the way Karmada's own harness does. Prints one line per failure and ends with
"N passed, M failed"; exits 1 when anything failed.
A customizations.yaml beside a testdata/ folder (Karmada's layout: <group>/<version>/<Kind>/) is
loaded as a user customization, like --customizations: the cases test that script.
`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { customizations: { type: 'string', multiple: true } },
    allowPositionals: true,
  });
  const files = await findTestdataFiles(positionals.length > 0 ? positionals : ['interpreters']);
  // Ours are loaded as built-in Lua already.
  const builtin = new Set(findBuiltinCustomizationFiles().map((file) => resolve(file)));
  const beside = (await customizationsBesideTestdata(files)).filter((file) => !builtin.has(resolve(file)));
  const loaded = await createRegistry({ customizations: [...(values.customizations ?? []), ...beside] });
  try {
    for (const p of loaded.problems) process.stderr.write(`warning: ${p.file}: ${p.message}\n`);
    if (beside.length > 0) process.stderr.write(`test: using the customizations beside the cases: ${beside.join(', ')}\n`);
    const result = await runTestFiles(files, (tc) => runCaseInProcess(loaded.registry, tc));
    process.stdout.write(formatSummary(result));
    return result.failed.length === 0 ? 0 : 1;
  } finally {
    loaded.close();
  }
}
