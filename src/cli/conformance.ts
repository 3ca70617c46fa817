// `conformance`: Karmada's own test cases, driven over HTTPS through the real server exactly as
// Karmada's webhook client would (build request, verify response, apply patch, compare).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import type { LoadedRegistry } from '../interpreter/setup.ts';
import type { KindInterpreter } from '../interpreter/types.ts';
import { caseInput, type TestCase } from '../testcases/cases.ts';
import { SKIP, customizationsBesideTestdata, findTestdataFiles, formatSummary, runTestFiles } from '../testcases/runner.ts';
import { WebhookClient, karmadaRequest, resultsFromResponse } from '../protocol/karmada-client.ts';
import { startLocalServer } from '../server/local.ts';
import { loadRegistry, REGISTRY_FLAGS, REGISTRY_FLAGS_HELP, runCommand, UsageError } from './common.ts';

/** Where Karmada keeps its third-party customizations and their cases, inside a checkout. */
const KARMADA_CASES = join('pkg', 'resourceinterpreter', 'default', 'thirdparty', 'resourcecustomizations');

const GET_CASES = `Karmada's cases come with its source:
  git clone --depth 1 https://github.com/karmada-io/karmada
  npm run conformance -- karmada/pkg/resourceinterpreter/default/thirdparty/resourcecustomizations
(the checkout's root works too: karmada-interpreter conformance karmada)`;

export const help = `Usage: karmada-interpreter conformance PATH... [--customizations DIR ...] [--examples NAMES] [--url URL --ca-file F]

Starts the server in process on loopback (or uses --url), and for every case in every testdata/
folder under PATH whose kind we serve: builds the request as
Karmada's webhook client does, sends it over HTTPS, verifies the response like Karmada, applies the
returned patch and compares the result like Karmada's harness.
What we have no interpreter for (a kind, or an operation of a kind) is answered by the
customizations.yaml beside that kind's testdata/ (Karmada's layout, as in its
thirdparty/resourcecustomizations tree), as Karmada falls back to its own scripts: those cases test our
Lua runtime with Karmada's scripts. Cases of kinds served by neither are skipped.
A case listed in interpreters/<group>/<version>/<Kind>/conformance-differences.yaml
(a list of {name, reason}) is a deliberate difference: reported, not failed.
A case with an empty statusItems list is sent with "aggregatedStatus": [] although Karmada's client
omits an empty list, so the case tests the script with the list it gives, as Karmada's harness does. A listed case that
passes is a failure, so the list stays true. Ends with "N passed, M failed".
Exits 1 when a case fails or PATH holds no case, 2 when PATH is missing or does not exist.

${GET_CASES}

${REGISTRY_FLAGS_HELP}
`;

/** PATH as given, or the cases folder inside it when it is a Karmada checkout. */
function casesFolder(path: string): string {
  const inside = join(path, KARMADA_CASES);
  return existsSync(inside) ? inside : path;
}

const KIND_PATH = /([^/\\]+)[/\\]([^/\\]+)[/\\]([^/\\]+)[/\\]testdata[/\\]/;

/** Deliberate differences declared by our kind module for the kind a testdata file belongs to. */
async function differencesFor(testdataFile: string): Promise<Map<string, string>> {
  const match = KIND_PATH.exec(testdataFile);
  if (!match) return new Map();
  const file = join('interpreters', match[1]!, match[2]!, match[3]!, 'conformance-differences.yaml');
  if (!existsSync(file)) return new Map();
  const list = (parse(await readFile(file, 'utf8')) ?? []) as Array<{ name: string; reason: string }>;
  return new Map(list.map((d) => [d.name, d.reason]));
}

/** "apiVersion Kind: Op, Op" for every operation a fallback (beside-testdata) script answers. */
function answeredByFallback({ registry, fallbackLua }: LoadedRegistry): string[] {
  const fallbacks = new Set<KindInterpreter>(fallbackLua?.interpreters ?? []);
  return registry.served().flatMap(({ apiVersion, kind, operations }) => {
    const answered = operations.filter((op) => fallbacks.has(registry.resolve(apiVersion, kind, op)!.interpreter));
    return answered.length > 0 ? [`${apiVersion} ${kind}: ${answered.join(', ')}`] : [];
  });
}

export async function run(args: string[]): Promise<number> {
  return runCommand('conformance', undefined, () => execute(args), args);
}

async function execute(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { ...REGISTRY_FLAGS, url: { type: 'string' }, 'ca-file': { type: 'string' } },
    allowPositionals: true,
  });
  if (positionals.length === 0) throw new UsageError(`give the folder of Karmada's test cases. ${GET_CASES}`);
  for (const path of positionals) {
    if (!existsSync(path)) throw new UsageError(`${path} does not exist; NOT RUN. ${GET_CASES}`);
  }
  const files = await findTestdataFiles(positionals.map(casesFolder));
  if (files.length === 0) {
    process.stderr.write(`conformance: no testdata/ files under ${positionals.join(', ')}; NOT RUN. ${GET_CASES}\n`);
    return 1;
  }
  const loaded = await loadRegistry(values, { fallbackCustomizations: await customizationsBesideTestdata(files) });
  const server = values.url ? undefined : await startLocalServer(loaded.registry);
  const client = new WebhookClient(values.url ?? server!.url, {
    ca: values['ca-file'] ? await readFile(values['ca-file'], 'utf8') : server?.ca,
    timeoutSeconds: 10,
  });
  try {
    const result = await runTestFiles(
      files,
      async (tc: TestCase) => {
        const input = caseInput(tc);
        if (typeof input === 'string') return input;
        if (!loaded.registry.serves(input.apiVersion, input.kind)) return SKIP;
        const context = karmadaRequest(input);
        // Karmada's client never sends an empty list (omitempty) but its harness runs the script with one:
        // send it as [] so the case still tests that an empty list reaches the script as a list, not nil.
        if (input.aggregatedStatus?.length === 0) context.request!.aggregatedStatus = [];
        try {
          return resultsFromResponse(context.request!, await client.call(context));
        } catch (error) {
          return `${input.operation}: ${(error as Error).message}`;
        }
      },
      undefined,
      { asKarmada: true },
    );
    const deliberate: string[] = [];
    const failed = [];
    for (const failure of result.failed) {
      const reason = (await differencesFor(failure.file)).get(failure.name);
      if (reason) deliberate.push(`DIFFERENT (deliberate) ${failure.file}: ${failure.name}\n  reason: ${reason}`);
      else failed.push(failure);
    }
    let passed = result.passed;
    for (const ok of result.passedCases) {
      if ((await differencesFor(ok.file)).has(ok.name)) {
        passed -= 1;
        failed.push({ ...ok, problems: ['listed in conformance-differences.yaml but now passes: remove it from the list'] });
      }
    }
    if (deliberate.length > 0) process.stdout.write(deliberate.join('\n') + '\n');
    const beside = answeredByFallback(loaded);
    if (beside.length > 0)
      process.stdout.write(`conformance: answered by the customizations.yaml beside their testdata:\n${beside.map((line) => `  ${line}\n`).join('')}`);
    process.stdout.write(`conformance: ${deliberate.length} deliberate differences; ${result.skipped} cases skipped (kind not served)\n`);
    process.stdout.write(formatSummary({ ...result, passed, failed }));
    return failed.length === 0 ? 0 : 1;
  } finally {
    client.close();
    await server?.close();
    await loaded.close();
  }
}
