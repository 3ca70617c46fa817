// `conformance`: Karmada's own test cases, driven over HTTPS through the real server exactly as
// Karmada's webhook client would (build request, verify response, apply patch, compare).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { createRegistry, type LoadedRegistry } from '../interpreter/setup.ts';
import type { KindInterpreter } from '../interpreter/types.ts';
import { caseInput, type TestCase } from '../interpreter/testcases.ts';
import { SKIP, customizationsBesideTestdata, findTestdataFiles, formatSummary, runTestFiles } from '../interpreter/testrunner.ts';
import { WebhookClient, karmadaRequest, resultsFromResponse } from '../protocol/karmada-client.ts';
import { startLocalServer } from '../server/local.ts';

export const summary = "run Karmada's test cases over HTTPS against the server (deliberate differences listed per kind)";
export const help = `Usage: karmada-interpreter conformance [PATH ...] [--customizations DIR ...] [--url URL --ca-file F]

Starts the server in process on loopback (or uses --url), and for every case in every testdata/
folder under PATH (default ../shared/conformance/karmada) whose kind we serve: builds the request as
Karmada's webhook client does, sends it over HTTPS, verifies the response like Karmada, applies the
returned patch and compares the result like Karmada's harness.
What we have no interpreter for (a kind, or an operation of a kind) is answered by the
customizations.yaml beside that kind's testdata/ (Karmada's layout, as in its
thirdparty/resourcecustomizations tree), as Karmada falls back to its own scripts: those cases test our
Lua runtime with Karmada's scripts. Cases of kinds served by neither are skipped.
A case listed in interpreters/<group>/<version>/<Kind>/conformance-differences.yaml
(a list of {name, reason}) is a deliberate difference: reported, not failed. A listed case that
passes is a failure, so the list stays true. Ends with "N passed, M failed".
`;

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
  const { values, positionals } = parseArgs({
    args,
    options: { customizations: { type: 'string', multiple: true }, url: { type: 'string' }, 'ca-file': { type: 'string' } },
    allowPositionals: true,
  });
  const files = await findTestdataFiles(positionals.length > 0 ? positionals : [join('..', 'shared', 'conformance', 'karmada')]);
  const loaded = await createRegistry({ customizations: values.customizations ?? [], fallbackCustomizations: await customizationsBesideTestdata(files) });
  for (const p of loaded.problems) process.stderr.write(`warning: ${p.file}: ${p.message}\n`);
  const server = values.url ? undefined : await startLocalServer(loaded.registry);
  const client = new WebhookClient(values.url ?? server!.url, {
    ca: values['ca-file'] ? await readFile(values['ca-file'], 'utf8') : server?.ca,
    timeoutSeconds: 10,
  });
  try {
    const result = await runTestFiles(files, async (tc: TestCase) => {
      const input = caseInput(tc);
      if (typeof input === 'string') return input;
      if (!loaded.registry.serves(input.apiVersion, input.kind)) return SKIP;
      const context = karmadaRequest(input);
      try {
        return resultsFromResponse(context.request!, await client.call(context));
      } catch (error) {
        return `${input.operation}: ${(error as Error).message}`;
      }
    });
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
    if (beside.length > 0) process.stdout.write(`conformance: answered by the customizations.yaml beside their testdata:\n${beside.map((line) => `  ${line}\n`).join('')}`);
    process.stdout.write(`conformance: ${deliberate.length} deliberate differences; ${result.skipped} cases skipped (kind not served)\n`);
    process.stdout.write(formatSummary({ ...result, passed, failed }));
    return failed.length === 0 ? 0 : 1;
  } finally {
    client.close();
    await server?.close();
    loaded.close();
  }
}
