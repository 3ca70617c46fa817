// Small helpers shared by the CLI commands.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { KindSelectorError } from '../interpreter/kind-selector.ts';
import type { Registry } from '../interpreter/registry.ts';
import type { LoadedRegistry, RegistryOptions } from '../interpreter/setup.ts';
import { readYamlDocuments } from '../k8s/yaml-documents.ts';
import { selectExamples } from '../customizations/examples.ts';
import { stringify as stringifyYaml } from 'yaml';

/** Reads a YAML or JSON file ('-' = stdin) and returns every document. */
export async function readDocuments(path: string): Promise<unknown[]> {
  const text = path === '-' ? await readStdin() : await readFile(path, 'utf8');
  const values: unknown[] = [];
  for (const doc of readYamlDocuments(text)) {
    if (doc.error !== undefined) throw new Error(`${path}: document ${doc.document}: ${doc.error}`);
    if (doc.value !== null && doc.value !== undefined) values.push(doc.value);
  }
  return values;
}

export async function readSingleDocument(path: string): Promise<Record<string, any>> {
  const docs = await readDocuments(path);
  if (docs.length !== 1 || typeof docs[0] !== 'object' || Array.isArray(docs[0])) {
    throw new Error(`${path}: expected exactly one object, found ${docs.length} document(s)`);
  }
  return docs[0] as Record<string, any>;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class UsageError extends Error {
  /** false when the message says all there is to say (the command's help would bury it). */
  readonly showHelp: boolean;

  constructor(message: string, options: { showHelp?: boolean } = {}) {
    super(message);
    this.showHelp = options.showHelp ?? true;
  }
}

/** The flags of every command that builds the registry (what the server would serve). */
export const REGISTRY_FLAGS = {
  customizations: { type: 'string', multiple: true },
  examples: { type: 'string', multiple: true },
} as const;

export const REGISTRY_FLAGS_HELP = `  --customizations DIR  your ResourceInterpreterCustomization files or folders (repeatable); a path that
                        does not exist is a usage error
  --examples NAMES      also serve shipped Lua examples: all, or kinds (Rollout.argoproj.io,
                        ScaledObject.keda.sh; comma-separated or repeated); env
                        KARMADA_INTERPRETER_EXAMPLES; none by default, as in serve`;

export interface RegistryFlagValues {
  customizations?: string[];
  examples?: string[];
}

/**
 * The registry options of a command's flags, with KARMADA_INTERPRETER_EXAMPLES as the default of
 * --examples (as for serve, so webhook-config and serve agree). A missing --customizations path and an
 * unknown example are usage errors.
 */
export function registryOptions(values: RegistryFlagValues, env: NodeJS.ProcessEnv = process.env): { customizations: string[]; examples: string[] } {
  const customizations = values.customizations ?? [];
  for (const path of customizations) {
    if (!existsSync(path)) throw new UsageError(`--customizations ${path}: no such file or directory`);
  }
  const examples = values.examples ?? (env.KARMADA_INTERPRETER_EXAMPLES ? [env.KARMADA_INTERPRETER_EXAMPLES] : []);
  try {
    selectExamples(examples);
  } catch (error) {
    if (error instanceof KindSelectorError) throw new UsageError(`--examples: ${error.message}`);
    throw error;
  }
  return { customizations, examples };
}

/** Builds the registry for a command and reports load problems on stderr ("error:" / "warning:"). */
export async function loadRegistry(values: RegistryFlagValues, extra: RegistryOptions = {}): Promise<LoadedRegistry> {
  const { createRegistry } = await import('../interpreter/setup.ts');
  const loaded = await createRegistry({ ...extra, ...registryOptions(values) });
  for (const p of loaded.problems) process.stderr.write(`error: ${p.file}: ${p.message}\n`);
  for (const p of loaded.warnings) process.stderr.write(`warning: ${p.file}: ${p.message}\n`);
  return loaded;
}

/**
 * For commands that take their own flags and need the registry too (preserve): reads --customizations
 * and --examples from args, builds the registry, runs fn, and releases it. Usage errors exit 2.
 */
export async function withRegistry(args: string[], command: string, help: string, fn: (registry: Registry) => Promise<number>): Promise<number> {
  const take = (flag: string) =>
    args.flatMap((arg, i) => (arg === `--${flag}` && args[i + 1] ? [args[i + 1]!] : arg.startsWith(`--${flag}=`) ? [arg.slice(flag.length + 3)] : []));
  const examples = take('examples');
  let loaded: LoadedRegistry;
  try {
    loaded = await loadRegistry({ customizations: take('customizations'), ...(examples.length > 0 ? { examples } : {}) });
  } catch (error) {
    if (error instanceof UsageError) return usageError(command, error, help);
    throw error;
  }
  try {
    return await fn(loaded.registry);
  } finally {
    await loaded.close();
  }
}

/**
 * The usage error in an error a command threw, if it is one: a UsageError, a parseArgs error (unknown
 * option, missing value) or a file or folder the user named that does not exist (ENOENT with a path).
 */
export function asUsageError(error: unknown, args: readonly string[] = process.argv.slice(2)): UsageError | undefined {
  if (error instanceof UsageError) return error;
  const { code, path } = (error ?? {}) as { code?: unknown; path?: unknown };
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) return new UsageError((error as Error).message);
  // Only a path the user typed is their mistake; a missing file of our own is a bug, reported as one.
  if (code === 'ENOENT' && typeof path === 'string' && namedByUser(path, args)) {
    return new UsageError(`${path}: no such file or directory`, { showHelp: false });
  }
  return undefined;
}

/** Whether `path` is one of the arguments (as typed, or the same file once resolved; `--flag=PATH` too). */
function namedByUser(path: string, args: readonly string[]): boolean {
  const target = resolve(path);
  return args.some((arg) => {
    const value = arg.startsWith('-') && arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : arg;
    return value === path || resolve(value) === target;
  });
}

/** Errors that only a defect in our code throws: their stack is what a bug report needs. */
const DEFECTS = [TypeError, ReferenceError, RangeError];

/** Reports a usage error the one way every command does: "COMMAND: message" on stderr (then the help, when given and useful); exit code 2. */
export function usageError(command: string, error: string | UsageError, help?: string): number {
  const usage = typeof error === 'string' ? new UsageError(error) : error;
  process.stderr.write(`${command}: ${usage.message}\n${help !== undefined && usage.showHelp ? `\n${help}` : ''}`);
  return 2;
}

/**
 * Runs a command's body: a usage error (see asUsageError) goes to stderr with exit code 2, any other
 * error to stderr as "COMMAND: message" with exit code 1, with its stack when it is a defect (a
 * TypeError, ReferenceError or RangeError). help, when given, follows a usage error.
 */
export async function runCommand(
  command: string,
  help: string | undefined,
  body: () => Promise<number>,
  /** The command's arguments: a missing file named among them is the user's mistake (asUsageError). */
  args: readonly string[] = process.argv.slice(2),
): Promise<number> {
  try {
    return await body();
  } catch (error) {
    const usage = asUsageError(error, args);
    if (usage) return usageError(command, usage, help);
    const defect = DEFECTS.some((type) => error instanceof type) && error instanceof Error && error.stack;
    process.stderr.write(defect ? `${command}: ${error.stack}\n` : `${command}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** -o/--output of the commands that print results; the default keeps each command's own output. */
export const OUTPUT_FLAG = { output: { type: 'string', short: 'o' } } as const;

/** The --output value, one of formats (the first is the default); anything else is a usage error. */
export function outputFormat<F extends string>(value: string | undefined, formats: readonly [F, ...F[]]): F {
  if (value === undefined) return formats[0];
  if (!(formats as readonly string[]).includes(value)) throw new UsageError(`-o/--output ${value}: expected ${formats.join(', ')}`);
  return value as F;
}

/** A result in the machine-readable form -o asked for: indented JSON, or YAML. */
export function formatMachine(value: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? `${JSON.stringify(value, null, 2)}\n` : stringifyYaml(value);
}
