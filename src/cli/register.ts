// `register`: creates or updates the ResourceInterpreterWebhookConfiguration in karmada-apiserver,
// with the caBundle read from the serving certificate's CA. cert-manager's CA injector cannot do this
// (it only patches four built-in kinds, and this object lives in another API server).
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRegistry } from '../interpreter/setup.ts';
import { registerOnce } from '../register/registrar.ts';
import { UsageError } from './common.ts';

export const summary = 'create or update the ResourceInterpreterWebhookConfiguration in karmada-apiserver';
export const help = `Usage: karmada-interpreter register --kubeconfig FILE [--context NAME]
         (--url URL | --service NAMESPACE/NAME[:PORT][/PATH])
         (--ca-file F | --cert-dir DIR | --tls-cert-file F)
         [--timeout-seconds N] [--name NAME] [--webhook-name FQDN] [--customizations DIR ...]

Writes the same configuration as 'webhook-config' straight into karmada-apiserver (create, or update
when it differs), with caBundle set to the CA that signed the serving certificate. The CA is read from
--ca-file, else from ca.crt next to the certificate (cert-manager Secrets have one), else from the
serving certificate itself. 'serve --register' does the same continuously and again after rotation.

  --kubeconfig FILE       kubeconfig of karmada-apiserver (default: $KUBECONFIG)
  --context NAME          context in it (default: its current-context)
  --url, --service, --timeout-seconds, --name, --webhook-name, --customizations
                          as for webhook-config
  --ca-file F             PEM CA bundle
  --cert-dir DIR          directory with tls.crt (and usually ca.crt), e.g. the cert-manager Secret
  --tls-cert-file F       the serving certificate

The kubeconfig user needs get, create and update on resourceinterpreterwebhookconfigurations
(manifests/karmada/register-rbac.yaml).
`;

export async function run(args: string[]): Promise<number> {
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
        customizations: { type: 'string', multiple: true },
      },
    });
    const kubeconfig = values.kubeconfig ?? process.env.KUBECONFIG;
    if (!kubeconfig) throw new UsageError('--kubeconfig is required (or set KUBECONFIG)');
    const certFile = values['tls-cert-file'] ?? (values['cert-dir'] ? join(values['cert-dir'], 'tls.crt') : undefined);
    if (!values['ca-file'] && !certFile) throw new UsageError('give --ca-file, --cert-dir or --tls-cert-file: Karmada needs the CA to trust the webhook');
    const loaded = await createRegistry({ customizations: values.customizations ?? [] });
    try {
      for (const p of loaded.problems) process.stderr.write(`warning: ${p.file}: ${p.message}\n`);
      const outcome = await registerOnce(loaded.registry.served(), {
        kubeconfig,
        context: values.context,
        url: values.url,
        service: values.service,
        caFile: values['ca-file'],
        certFile,
        timeoutSeconds: values['timeout-seconds'] === undefined ? undefined : Number(values['timeout-seconds']),
        name: values.name,
        webhookName: values['webhook-name'],
      });
      process.stdout.write(`resourceinterpreterwebhookconfiguration.config.karmada.io/${outcome.name} ${outcome.result} (caBundle from ${outcome.caFile})\n`);
      return 0;
    } finally {
      loaded.close();
    }
  } catch (error) {
    process.stderr.write(`register: ${(error as Error).message}\n`);
    return error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
  }
}
