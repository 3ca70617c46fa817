// Loading a kubeconfig the way kubectl does (client-go tools/clientcmd/loader.go, ClientConfigLoadingRules):
// * an explicit file (--kubeconfig) is used alone and must exist;
// * otherwise the files of $KUBECONFIG (path-list separated, duplicates dropped, missing files skipped),
//   or ~/.kube/config when KUBECONFIG is unset or empty;
// * merged so that the first file to define a cluster, user or context name wins (later definitions of
//   that name are ignored whole) and the first file that sets current-context wins;
// * relative certificate-authority, client-certificate, client-key, token-file (and an exec command
//   containing a path separator) are resolved against the directory of the file that holds them;
// * --context picks a context; its cluster and user must exist.
// Written here because client-node's loadFromDefault differs on each merge rule (it throws on a name
// defined twice, lets the last file's current-context win and fails on a missing file).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { readYamlDocuments } from '../k8s/yaml-documents.ts';

export interface KubeconfigSource {
  /** `--kubeconfig`: this file only, as kubectl's flag. */
  kubeconfig?: string;
  /** `--context`: default the merged current-context. */
  context?: string;
  /** Where KUBECONFIG and HOME are read (tests pass their own). */
  env?: NodeJS.ProcessEnv;
}

export interface LoadedKubeconfig {
  kubeConfig: KubeConfig;
  /** The files that were read, in precedence order. */
  files: string[];
  context: string;
  /** The API server URL of the chosen context's cluster (for messages). */
  server: string;
}

export class KubeconfigError extends Error {}

type Named = { name?: unknown; [key: string]: unknown };
interface RawConfig {
  clusters: Named[];
  users: Named[];
  contexts: Named[];
  currentContext?: string;
}

/** The files kubectl would read, in precedence order, and whether they were named explicitly. */
export function kubeconfigFiles(source: KubeconfigSource): { files: string[]; explicit: boolean; from: string } {
  const env = source.env ?? process.env;
  if (source.kubeconfig) return { files: [source.kubeconfig], explicit: true, from: '--kubeconfig' };
  if (env.KUBECONFIG) {
    const files = [...new Set(env.KUBECONFIG.split(delimiter).filter((file) => file !== ''))];
    return { files, explicit: false, from: 'KUBECONFIG' };
  }
  return { files: [join(env.HOME || homedir(), '.kube', 'config')], explicit: false, from: 'the default ~/.kube/config' };
}

export function loadKubeconfig(source: KubeconfigSource): LoadedKubeconfig {
  const { files, explicit, from } = kubeconfigFiles(source);
  const configs: Array<{ file: string; config: RawConfig }> = [];
  const missing: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !explicit) {
        missing.push(file);
        continue;
      }
      throw new KubeconfigError(
        code === 'ENOENT' ? `kubeconfig ${file} (${from}) does not exist` : `cannot read kubeconfig ${file}: ${(error as Error).message}`,
      );
    }
    configs.push({ file, config: parseKubeconfig(text, file) });
  }
  if (configs.length === 0) {
    const hint = from === 'KUBECONFIG' ? '' : ' (give --kubeconfig FILE or set KUBECONFIG)';
    throw new KubeconfigError(`no kubeconfig: ${missing.join(', ')} from ${from} not found${hint}`);
  }

  const merged: RawConfig = { clusters: [], users: [], contexts: [] };
  for (const { config } of configs) {
    for (const key of ['clusters', 'users', 'contexts'] as const) {
      for (const entry of config[key]) {
        if (!merged[key].some((known) => known.name === entry.name)) merged[key].push(entry);
      }
    }
    merged.currentContext ||= config.currentContext;
  }

  const read = configs.map((c) => c.file);
  const where = read.length === 1 ? read[0]! : `${read.join(', ')} (merged)`;
  const names = (entries: Named[]) => entries.map((e) => String(e.name)).join(', ') || 'none';
  const contextName = source.context || merged.currentContext;
  if (!contextName) throw new KubeconfigError(`${where} sets no current-context: pass --context (contexts: ${names(merged.contexts)})`);
  const context = merged.contexts.find((c) => c.name === contextName);
  if (!context) throw new KubeconfigError(`context "${contextName}" not found in ${where} (contexts: ${names(merged.contexts)})`);
  const body = (context.context ?? {}) as { cluster?: string; user?: string };
  const cluster = merged.clusters.find((c) => c.name === body.cluster);
  if (!cluster) throw new KubeconfigError(`cluster "${body.cluster ?? ''}" of context "${contextName}" not found in ${where}`);
  if (body.user && !merged.users.some((u) => u.name === body.user)) {
    throw new KubeconfigError(`user "${body.user}" of context "${contextName}" not found in ${where}`);
  }

  const kubeConfig = new KubeConfig();
  try {
    // client-node reads the merged document (JSON is YAML) and builds its clients from the chosen context.
    kubeConfig.loadFromString(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: merged.clusters,
        users: merged.users,
        contexts: merged.contexts,
        'current-context': contextName,
      }),
    );
  } catch (error) {
    throw new KubeconfigError(`${where}: ${(error as Error).message}`);
  }
  const server = kubeConfig.getCurrentCluster()?.server ?? '';
  return { kubeConfig, files: read, context: contextName, server };
}

function parseKubeconfig(text: string, file: string): RawConfig {
  const [first] = readYamlDocuments(text);
  if (first?.error) throw new KubeconfigError(`kubeconfig ${file}: ${first.error}`);
  const value = first?.value;
  // An empty file is an empty configuration, as for kubectl.
  if (value === undefined || value === null) return { clusters: [], users: [], contexts: [] };
  if (typeof value !== 'object' || Array.isArray(value)) throw new KubeconfigError(`kubeconfig ${file}: not a Config object`);
  const raw = value as Record<string, unknown>;
  const list = (key: string): Named[] => {
    const entries = raw[key] ?? [];
    if (!Array.isArray(entries) || entries.some((e) => typeof e !== 'object' || e === null || typeof (e as Named).name !== 'string')) {
      throw new KubeconfigError(`kubeconfig ${file}: ${key} must be a list of entries with a name`);
    }
    return entries as Named[];
  };
  const base = dirname(resolve(file));
  const clusters = list('clusters').map((entry) => withPaths(entry, 'cluster', ['certificate-authority'], base));
  const users = list('users').map((entry) => withPaths(entry, 'user', ['client-certificate', 'client-key', 'token-file'], base));
  const contexts = list('contexts');
  const currentContext = typeof raw['current-context'] === 'string' && raw['current-context'] !== '' ? raw['current-context'] : undefined;
  return { clusters, users, contexts, currentContext };
}

/** A copy of the entry with its file references made absolute against the kubeconfig's directory. */
function withPaths(entry: Named, bodyKey: string, keys: string[], base: string): Named {
  const body = entry[bodyKey];
  if (typeof body !== 'object' || body === null) return entry;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  const absolute = (path: unknown) => (typeof path === 'string' && path !== '' && !isAbsolute(path) ? join(base, path) : path);
  for (const key of keys) if (key in copy) copy[key] = absolute(copy[key]);
  // An exec command is resolved only when it is a path, not a name looked up in PATH.
  const exec = copy.exec as { command?: unknown } | undefined;
  if (exec && typeof exec.command === 'string' && exec.command.includes(sep)) copy.exec = { ...exec, command: absolute(exec.command) };
  return { ...entry, [bodyKey]: copy };
}
