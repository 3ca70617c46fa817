// `playground`: a local page to write and try customizations, every operation answered as you type.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { REGISTRY_FLAGS, REGISTRY_FLAGS_HELP, registryOptions, runCommand, UsageError } from './common.ts';

export const help = `Usage: karmada-interpreter playground [--port 8080] [--customizations DIR ...] [--examples NAMES]
         [--karmada-customizations DIR] [--lua-timeout-ms N]

Serves a page on http://127.0.0.1:PORT/ (loopback only) where you pick a kind (built in, from
--customizations, or a customization you write in the page), edit the resource template, the
member-cluster object and the aggregated status items, and see every operation's answer, which layer
gave it and how long it took, recomputed as you type, through the same registry, precedence and Lua
worker pool as serve. Open Karmada testdata files, recorded exchanges (serve --record) or request
envelopes; export what is on screen as a test case that 'karmada-interpreter test' passes, or as curl.
docs/playground.md has the details.

  --port N              the port (default 8080; 0 picks a free one)
  --karmada-customizations DIR
                        Karmada's thirdparty customizations (pkg/resourceinterpreter/default/thirdparty/
                        resourcecustomizations of a Karmada checkout): their answer is shown beside ours
  --lua-timeout-ms N    the time limit of one Lua call (default 1000, as serve)
${REGISTRY_FLAGS_HELP}

Requests must name the page's own address (Host, Origin) and carry the token the page was served with.
`;

export async function run(args: string[]): Promise<number> {
  return runCommand('playground', help, async () => {
    const parsed = parseArgs({
      args,
      options: { port: { type: 'string' }, 'karmada-customizations': { type: 'string' }, 'lua-timeout-ms': { type: 'string' }, ...REGISTRY_FLAGS },
    });
    const v = parsed.values;
    const port = Number(v.port ?? '8080');
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port ${v.port}: expected 0-65535`);
    const luaTimeoutMs = v['lua-timeout-ms'] === undefined ? undefined : Number(v['lua-timeout-ms']);
    if (luaTimeoutMs !== undefined && !(Number.isInteger(luaTimeoutMs) && luaTimeoutMs > 0))
      throw new UsageError(`--lua-timeout-ms ${v['lua-timeout-ms']}: expected a whole number > 0`);
    const karmada = v['karmada-customizations'];
    if (karmada !== undefined && !existsSync(karmada)) throw new UsageError(`--karmada-customizations ${karmada}: no such file or directory`);
    const registry = registryOptions(v);
    const { startPlayground } = await import('../playground/start.ts');
    const playground = await startPlayground({ port, ...registry, karmadaCustomizations: karmada, luaTimeoutMs });
    for (const p of playground.loaded.problems) process.stderr.write(`error: ${p.file}: ${p.message}\n`);
    for (const p of playground.karmada?.errors ?? []) process.stderr.write(`error: ${p.file}: ${p.message}\n`);
    if (!playground.pageBuilt) process.stderr.write('warning: the page is not built (dist/playground/main.js): run npm run build in the checkout\n');
    process.stdout.write(`playground: ${playground.url} (Ctrl-C stops it)\n`);
    const stop = () => void playground.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return new Promise<number>(() => undefined); // runs until a signal ends the process
  });
}
