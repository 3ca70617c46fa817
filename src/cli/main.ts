// One entry point for every command; each lives in src/cli/<name>.ts and exports run(args) -> exit code.
type Command = { summary: string; help: string; run(args: string[]): Promise<number> };

const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: () => import('./serve.js'),
  interpret: () => import('./interpret.js'),
  test: () => import('./test.js'),
  conformance: () => import('./conformance.js'),
  'webhook-config': () => import('./webhook-config.js'),
};

async function usage(): Promise<string> {
  const lines = [];
  for (const [name, load] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(16)}${(await load()).summary}`);
  return `Usage: karmada-interpreter <command> [options]

A Karmada resource interpreter webhook (ResourceInterpreterContext v1alpha1) for OpenKruise CloneSet
and Advanced StatefulSet, Argo Workflow, XlineCluster, and any kind served by Lua customizations.

Commands:
${lines.join('\n')}

Run 'karmada-interpreter <command> --help' for a command's options.
`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(await usage());
    return name ? 0 : 2;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`unknown command ${JSON.stringify(name)}\n\n${await usage()}`);
    return 2;
  }
  const command = await load();
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(command.help);
    return 0;
  }
  return command.run(args);
}
