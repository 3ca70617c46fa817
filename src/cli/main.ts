// One entry point for every command; each lives in src/cli/<name>.ts and exports run(args) -> exit code.
import type { Registry } from '../interpreter/registry.ts';

type Command = { summary: string; help: string; run(args: string[]): Promise<number> };

const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: () => import('./serve.ts'),
  interpret: () => import('./interpret.ts'),
  test: () => import('./test.ts'),
  conformance: () => import('./conformance.ts'),
  'webhook-config': () => import('./webhook-config.ts'),
  register: () => import('./register.ts'),
  check: () => import('./check.ts'),
  replay: () => import('./replay.ts'),
  preserve: async () => {
    const command = await import('./preserve.ts');
    const { statusReflector } = await import('../interpreter/reflect.ts');
    // preserve runs our InterpretStatus, so it needs the registry with the user's customizations.
    return {
      ...command,
      run: (args: string[]) =>
        withRegistry(args, (registry) => command.run(args, { reflect: statusReflector(registry) })),
    };
  },
};

/** Builds the registry from the --customizations flags in args, runs fn, and releases it. */
async function withRegistry(args: string[], fn: (registry: Registry) => Promise<number>): Promise<number> {
  const customizations = args.flatMap((arg, i) =>
    arg === '--customizations' && args[i + 1] ? [args[i + 1]!] : arg.startsWith('--customizations=') ? [arg.slice(17)] : [],
  );
  const { createRegistry } = await import('../interpreter/setup.ts');
  const loaded = await createRegistry({ customizations });
  try {
    for (const p of loaded.problems) process.stderr.write(`warning: ${p.file}: ${p.message}\n`);
    return await fn(loaded.registry);
  } finally {
    loaded.close();
  }
}

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
