// `register`: server-side applies the ResourceInterpreterWebhookConfiguration in karmada-apiserver,
// with the caBundle read from the serving certificate's CA, then warns about the
// ResourceInterpreterCustomizations there that Karmada asks before us. cert-manager's CA injector
// cannot do this (it only patches four built-in kinds, and this object lives in another API server).
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { KubeconfigError } from '../register/kubeconfig.ts';
import { kubectlFlags, shadowWarning } from '../register/precedence.ts';
import { registerOnce } from '../register/registrar.ts';
import { loadRegistry, REGISTRY_FLAGS, runCommand, usageError, UsageError } from './common.ts';
import { KIND_FILTER_FLAGS, requireLoaded, selectServedKinds } from './webhook-config.ts';

export const help = `Usage: karmada-interpreter register [--kubeconfig FILE] [--context NAME]
         (--url URL | --service NAMESPACE/NAME[:PORT][/PATH])
         (--ca-file F | --cert-dir DIR | --tls-cert-file F)
         [--timeout-seconds N] [--name NAME] [--webhook-name FQDN] [--kinds KINDS] [--exclude-kinds KINDS]
         [--customizations DIR ...] [--examples NAMES]

Applies the same configuration as 'webhook-config' to karmada-apiserver with server-side apply (field
manager karmada-interpreter-webhook; labels and annotations others set are kept), with caBundle set to
the CA that signed the serving certificate. The CA is read from --ca-file, else from ca.crt next to the
certificate (cert-manager Secrets have one), else from the serving certificate itself.
'serve --register' does the same continuously and again after rotation.

Then it lists the ResourceInterpreterCustomizations in karmada-apiserver that Karmada asks before any
webhook for a kind and operation served here, and warns with what to do about them.

  --kubeconfig FILE       kubeconfig of karmada-apiserver, used alone (default: as kubectl, the files
                          of $KUBECONFIG merged, else ~/.kube/config)
  --context NAME          context to use (default: the current-context)
  --url, --service, --timeout-seconds, --name, --webhook-name, --kinds, --exclude-kinds,
  --customizations, --examples
                          as for webhook-config (give serve's --customizations and --examples)
  --ca-file F             PEM CA bundle
  --cert-dir DIR          directory with tls.crt (and usually ca.crt), e.g. the cert-manager Secret
  --tls-cert-file F       the serving certificate

The kubeconfig user needs get, create and patch on resourceinterpreterwebhookconfigurations and list on
resourceinterpretercustomizations (manifests/karmada/register-rbac.yaml).
`;

export async function run(args: string[]): Promise<number> {
  return runCommand('register', undefined, () => execute(args), args);
}

async function execute(args: string[]): Promise<number> {
  try {
    const { values } = parseArgs({
      args,
      options: {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        url: { type: 'string' },
        service: { type: 'string' },
        'ca-file': { type: 'string' },
        'cert-dir': { type: 'string' },
        'tls-cert-file': { type: 'string' },
        'timeout-seconds': { type: 'string' },
        name: { type: 'string' },
        'webhook-name': { type: 'string' },
        ...KIND_FILTER_FLAGS,
        ...REGISTRY_FLAGS,
      },
    });
    const certFile = values['tls-cert-file'] ?? (values['cert-dir'] ? join(values['cert-dir'], 'tls.crt') : undefined);
    if (!values['ca-file'] && !certFile) throw new UsageError('give --ca-file, --cert-dir or --tls-cert-file: Karmada needs the CA to trust the webhook');
    const loaded = await loadRegistry(values);
    try {
      requireLoaded(loaded);
      const outcome = await registerOnce(selectServedKinds(loaded.registry.served(), values), {
        kubeconfig: values.kubeconfig,
        context: values.context,
        url: values.url,
        service: values.service,
        caFile: values['ca-file'],
        certFile,
        timeoutSeconds: values['timeout-seconds'] === undefined ? undefined : Number(values['timeout-seconds']),
        name: values.name,
        webhookName: values['webhook-name'],
      });
      process.stdout.write(
        `resourceinterpreterwebhookconfiguration.config.karmada.io/${outcome.name} ${outcome.result} (context ${outcome.context}, caBundle from ${outcome.caFile})\n`,
      );
      if (outcome.shadowingError)
        process.stderr.write(
          `warning: could not check for ResourceInterpreterCustomizations that take precedence over this webhook: ${outcome.shadowingError}\n`,
        );
      const warning = shadowWarning(outcome.shadowing ?? [], kubectlFlags(values, outcome.context));
      if (warning) process.stderr.write(`warning: ${warning}\n`);
      return 0;
    } finally {
      await loaded.close();
    }
  } catch (error) {
    // A kubeconfig that cannot be used is a wrong command line too (--kubeconfig, --context, $KUBECONFIG).
    if (error instanceof KubeconfigError) return usageError('register', error.message);
    throw error;
  }
}
