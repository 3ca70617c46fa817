// `webhook-config`: prints the ResourceInterpreterWebhookConfiguration for what the registry serves,
// so the rules Karmada sees can never drift from what the server implements.
import { parseArgs } from 'node:util';
import { filterKinds, KindSelectorError, parseSelectors } from '../interpreter/kind-selector.ts';
import type { ServedKind } from '../interpreter/registry.ts';
import type { LoadedRegistry } from '../interpreter/setup.ts';
import { readCaBundle } from '../register/ca-bundle.ts';
import { formatMachine, loadRegistry, OUTPUT_FLAG, outputFormat, REGISTRY_FLAGS, REGISTRY_FLAGS_HELP, runCommand, UsageError } from './common.ts';

export const help = `Usage: karmada-interpreter webhook-config (--url URL | --service NAMESPACE/NAME[:PORT][/PATH])
         [--ca-file F] [--timeout-seconds N] [--name NAME] [--webhook-name FQDN]
         [--kinds KINDS] [--exclude-kinds KINDS] [--customizations DIR ...] [--examples NAMES] [-o yaml|json]

Prints a config.karmada.io/v1alpha1 ResourceInterpreterWebhookConfiguration whose rules list every
served kind with exactly the operations it implements, one rule per served API version (CloneSet:
apps.kruise.io v1alpha1 and v1beta1) (interpreterContextVersions [v1alpha1]).
Apply it to karmada-apiserver (not the host cluster). Exits 1 when a --customizations file fails
to load (its kinds would be missing), 2 on wrong usage.

  --url URL               https://host[:port][/path] (use for pull-mode clusters and Karmada < 1.13)
  --service NS/NAME[:PORT][/PATH]
                          a Service in karmada-apiserver's view; PATH default /interpret, PORT default 443
  --ca-file F             PEM CA bundle to embed as caBundle (its CERTIFICATE blocks; a file without one is refused)
  --timeout-seconds N     1-30 (default 10)
  --name NAME             metadata.name (default karmada-interpreter-webhook)
  --webhook-name FQDN     webhooks[].name (default interpreter.karmada-interpreter-webhook.io)
  --kinds KINDS           only these served kinds: Kind or Kind.group (CloneSet, Workflow.argoproj.io),
                          every served version of each, comma-separated or repeated; Karmada keeps
                          its own interpreters for the rest
  --exclude-kinds KINDS   every served kind but these
  -o, --output FORMAT     yaml (default) or json: the same object
${REGISTRY_FLAGS_HELP}
`;

/** The flags that choose which served kinds are registered (webhook-config, register). */
export const KIND_FILTER_FLAGS = {
  kinds: { type: 'string', multiple: true },
  'exclude-kinds': { type: 'string', multiple: true },
} as const;

/** The served kinds that --kinds selects and --exclude-kinds does not; a name matching no served kind is a usage error. */
export function selectServedKinds(served: ServedKind[], flags: { kinds?: string[]; 'exclude-kinds'?: string[] }, prefix = ''): ServedKind[] {
  try {
    const include = parseSelectors(flags.kinds ?? [], served, 'served kind');
    const exclude = parseSelectors(flags['exclude-kinds'] ?? [], served, 'served kind');
    const selected = filterKinds(served, include, exclude);
    if (selected.length === 0) throw new UsageError(`--kinds/--exclude-kinds leave no kind to register`);
    return selected;
  } catch (error) {
    if (error instanceof KindSelectorError) throw new UsageError(`--${prefix}kinds: ${error.message}`);
    throw error;
  }
}

/** Refuses to go on when a --customizations file failed to load: its kinds would silently be left out. */
export function requireLoaded(loaded: LoadedRegistry): void {
  const files = [...new Set((loaded.userLua?.errors ?? []).map((problem) => problem.file))];
  if (files.length > 0)
    throw new Error(`not all customizations loaded (${files.join(', ')}): fix them (karmada-interpreter check) or leave them out; the errors are above`);
}

export interface WebhookConfigOptions {
  url?: string;
  service?: string;
  caBundle?: string;
  timeoutSeconds?: number;
  name?: string;
  webhookName?: string;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function clientConfig(options: WebhookConfigOptions): Record<string, unknown> {
  if (Boolean(options.url) === Boolean(options.service)) throw new UsageError('give exactly one of --url or --service');
  const config: Record<string, unknown> = {};
  if (options.url) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new UsageError(`--url ${options.url} is not a URL`);
    }
    if (url.protocol !== 'https:') throw new UsageError('--url must use https (Karmada refuses other schemes)');
    if (url.username || url.password || url.hash || url.search) throw new UsageError('--url must not contain user info, a query or a fragment');
    config.url = options.url;
  } else {
    const match = /^([^/:]+)\/([^/:]+)(?::(\d+))?(\/.*)?$/.exec(options.service!);
    if (!match) throw new UsageError('--service must look like NAMESPACE/NAME[:PORT][/PATH]');
    const [, namespace, name, port, path] = match;
    if (!DNS1123_LABEL.test(namespace!) || !DNS1123_LABEL.test(name!)) throw new UsageError('--service namespace and name must be DNS-1123 labels');
    const servicePath = path ?? '/interpret';
    // Karmada validates every path segment as a DNS-1123 subdomain (lowercase, no '_').
    for (const segment of servicePath.split('/').slice(1)) {
      if (!DNS1123_SUBDOMAIN.test(segment))
        throw new UsageError(`--service path segment ${JSON.stringify(segment)} must be lowercase DNS-1123 (e.g. /interpret-cloneset)`);
    }
    const portNumber = port ? Number(port) : 443;
    if (portNumber < 1 || portNumber > 65535) throw new UsageError('--service port must be 1-65535');
    config.service = { namespace, name, path: servicePath, port: portNumber };
  }
  if (options.caBundle) config.caBundle = Buffer.from(options.caBundle, 'utf8').toString('base64');
  return config;
}

export function webhookConfiguration(served: ServedKind[], options: WebhookConfigOptions): Record<string, unknown> {
  const timeoutSeconds = options.timeoutSeconds ?? 10;
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30) throw new UsageError('--timeout-seconds must be 1-30');
  const webhookName = options.webhookName ?? 'interpreter.karmada-interpreter-webhook.io';
  if (webhookName.split('.').length < 2 || !DNS1123_SUBDOMAIN.test(webhookName)) throw new UsageError('--webhook-name must be a fully qualified domain name');
  return {
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterWebhookConfiguration',
    metadata: { name: options.name ?? 'karmada-interpreter-webhook' },
    webhooks: [
      {
        name: webhookName,
        clientConfig: clientConfig(options),
        rules: served.map((s) => {
          const [group, version] = s.apiVersion.includes('/') ? s.apiVersion.split('/') : ['', s.apiVersion];
          return { operations: s.operations, apiGroups: [group], apiVersions: [version], kinds: [s.kind] };
        }),
        interpreterContextVersions: ['v1alpha1'],
        timeoutSeconds,
      },
    ],
  };
}

export async function run(args: string[]): Promise<number> {
  return runCommand(
    'webhook-config',
    undefined,
    async () => {
      const { values } = parseArgs({
        args,
        options: {
          url: { type: 'string' },
          service: { type: 'string' },
          'ca-file': { type: 'string' },
          'timeout-seconds': { type: 'string' },
          name: { type: 'string' },
          'webhook-name': { type: 'string' },
          ...KIND_FILTER_FLAGS,
          ...REGISTRY_FLAGS,
          ...OUTPUT_FLAG,
        },
      });
      const format = outputFormat(values.output, ['yaml', 'json']);
      const loaded = await loadRegistry(values);
      try {
        requireLoaded(loaded);
        const config = webhookConfiguration(selectServedKinds(loaded.registry.served(), values), {
          url: values.url,
          service: values.service,
          caBundle: values['ca-file'] ? (await readCaBundle({ caFile: values['ca-file'] })).pem : undefined,
          timeoutSeconds: values['timeout-seconds'] === undefined ? undefined : Number(values['timeout-seconds']),
          name: values.name,
          webhookName: values['webhook-name'],
        });
        process.stdout.write(formatMachine(config, format));
        return 0;
      } finally {
        await loaded.close();
      }
    },
    args,
  );
}
