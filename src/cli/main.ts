// One entry point for every command; each lives in src/cli/<name>.ts and exports help and run(args) -> exit code.
// The summaries live here so `--help` and `version` load no command module (some pull in the whole server).
import { serverVersion } from '../record/server-version.ts';

type Command = { help: string; run(args: string[]): Promise<number> };

interface CommandEntry {
  summary: string;
  load(): Promise<Command>;
}

const COMMANDS: Record<string, CommandEntry> = {
  serve: { summary: 'serve the interpreter webhook over HTTPS', load: () => import('./serve.ts') },
  interpret: {
    summary: 'run one operation on a local object, a request envelope or a test case (like karmadactl interpret)',
    load: () => import('./interpret.ts'),
  },
  test: { summary: 'run Karmada-format test cases (testdata/*.yaml) against our interpreters', load: () => import('./test.ts') },
  check: {
    summary: 'check ResourceInterpreterCustomization files: fields and Lua compilation (like karmadactl interpret --check)',
    load: () => import('./check.ts'),
  },
  conformance: {
    summary: "run Karmada's test cases over HTTPS against the server (deliberate differences listed per kind)",
    load: () => import('./conformance.ts'),
  },
  'webhook-config': { summary: 'print the ResourceInterpreterWebhookConfiguration for the served kinds', load: () => import('./webhook-config.ts') },
  register: { summary: 'apply the ResourceInterpreterWebhookConfiguration to karmada-apiserver (server-side apply)', load: () => import('./register.ts') },
  playground: { summary: 'a local page to write and try customizations: every operation answered as you type', load: () => import('./playground.ts') },
  replay: { summary: 'replay recorded exchanges (serve --record, test/fixtures) and show what would change', load: () => import('./replay.ts') },
  preserve: {
    summary: 'evaluate failover state-preservation rules against an object, as Karmada would',
    load: async () => {
      const command = await import('./preserve.ts');
      const { statusReflector } = await import('../interpreter/reflect.ts');
      const { withRegistry } = await import('./common.ts');
      // preserve runs our InterpretStatus, so it needs the registry with the user's customizations.
      return {
        ...command,
        run: (args: string[]) => withRegistry(args, 'preserve', command.help, (registry) => command.run(args, { reflect: statusReflector(registry) })),
      };
    },
  },
  version: {
    summary: 'print the version of this build and of Node.js',
    load: async () => ({ help: VERSION_HELP, run: async (args) => (args.length > 0 ? versionUsage(args) : printVersion()) }),
  },
};

const VERSION_HELP = `Usage: karmada-interpreter version   (or --version)

Prints the version of karmada-interpreter-webhook (package.json) and of the Node.js running it.
`;

function printVersion(): number {
  process.stdout.write(`karmada-interpreter-webhook ${serverVersion()} (Node.js ${process.version})\n`);
  return 0;
}

async function versionUsage(args: string[]): Promise<number> {
  const { usageError } = await import('./common.ts');
  return usageError('version', `takes no arguments, got ${args.join(' ')}`, VERSION_HELP);
}

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, { summary }]) => `  ${name.padEnd(16)}${summary}`);
  return `Usage: karmada-interpreter <command> [options]

A Karmada resource interpreter webhook (ResourceInterpreterContext v1alpha1) for OpenKruise CloneSet
and Advanced StatefulSet, Argo Workflow and XlineCluster, and any kind you describe with Lua
ResourceInterpreterCustomizations (--customizations DIR). The Lua examples shipped with it (Argo
Rollout, KEDA ScaledObject) are served only when enabled with --examples.

Commands:
${lines.join('\n')}

Run 'karmada-interpreter <command> --help' (or 'karmada-interpreter help <command>') for a command's
options; 'karmada-interpreter --version' prints the version.
`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? args[0] : undefined;
    if (topic !== undefined) {
      const entry = COMMANDS[topic];
      if (!entry) return unknownCommand(topic);
      process.stdout.write((await entry.load()).help);
      return 0;
    }
    process.stdout.write(usage());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') return printVersion();
  const entry = COMMANDS[name];
  if (!entry) return unknownCommand(name);
  const command = await entry.load();
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(command.help);
    return 0;
  }
  return command.run(args);
}

function unknownCommand(name: string): number {
  process.stderr.write(`unknown command ${JSON.stringify(name)}\n\n${usage()}`);
  return 2;
}
