// `serve`: the HTTPS webhook server. This file is the command (flags, help); the wiring is src/server/start.ts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { usageError, UsageError } from './common.ts';
import { ConfigError, SERVE_OPTIONS, optionsHelp, serveConfig, type ServeConfig } from '../config.ts';
import { containerMemoryLimit, fitMemory, MemoryFitError, type ContainerLimit } from '../server/memory-fit.ts';

export const help = `Usage: karmada-interpreter serve [options]

Serves POST /interpret (and /interpret/<any path>) for Karmada, plus /healthz, /readyz and /metrics.
Without --cert-dir or --tls-cert-file/--tls-key-file a self-signed CA and serving certificate are
used (SANs: localhost, 127.0.0.1, ::1 and every --tls-san): generated at the first start and kept in
--self-signed-dir for later ones, renewed 30 days before expiry; the CA file's path is logged.
Lua customizations and state-preservation JSONPath run on worker threads with time and memory limits.

Served: OpenKruise CloneSet (apps.kruise.io/v1alpha1 and v1beta1) and Advanced StatefulSet (apps.kruise.io/v1beta1),
Argo Workflow (argoproj.io/v1alpha1), XlineCluster (xline.io.datenlord.com/v1alpha1 and
xlineoperator.xline.cloud/v1alpha1), every kind of your --customizations, and the shipped Lua
examples you enable with --examples: Rollout.argoproj.io (Argo Rollout), ScaledObject.keda.sh (KEDA).
The log line "serving" lists the served kinds; /readyz counts them.

Options:
${optionsHelp(SERVE_OPTIONS)}
`;

/** `memoryLimit`: the container's memory limit (the cgroup's; tests pass their own). */
export async function run(args: string[], memoryLimit: () => ContainerLimit | undefined = containerMemoryLimit): Promise<number> {
  let config: ServeConfig & { help: boolean };
  try {
    config = serveConfig(args);
  } catch (error) {
    if (error instanceof ConfigError)
      return usageError('serve', new UsageError(`${error.message}\n('karmada-interpreter serve --help' lists every option)`, { showHelp: false }));
    throw error;
  }
  if (config.help) {
    process.stdout.write(help);
    return 0;
  }
  const missing = missingStartFiles(config);
  if (missing) return usageError('serve', new UsageError(missing, { showHelp: false }));
  // Before anything starts: a configuration the container's memory cannot hold ends in an OOM kill under load.
  try {
    const fit = fitMemory(config, memoryLimit());
    config = { ...config, luaWorkers: fit.luaWorkers, luaMemoryLimit: fit.luaMemoryLimit, maxConnections: fit.maxConnections, memoryFit: fit };
  } catch (error) {
    if (error instanceof MemoryFitError) return usageError('serve', new UsageError(error.message, { showHelp: false }));
    throw error;
  }
  const { startServing } = await import('../server/start.ts');
  try {
    await startServing(config);
  } catch (error) {
    process.stderr.write(`serve: ${(error as Error).message}\n`);
    return 1;
  }
  return new Promise<number>(() => undefined); // runs until a signal ends the process
}

/**
 * A --customizations path or certificate file that is not there, said with what the flag expects. Checked
 * before anything starts: a wrong mountPath must stop the start, not serve an empty set that looks healthy.
 */
export function missingStartFiles(config: Pick<ServeConfig, 'customizations' | 'certDir' | 'tlsCertFile' | 'tlsKeyFile'>): string | undefined {
  for (const path of config.customizations) {
    if (!existsSync(path))
      return `--customizations ${path}: no such file or directory (the mountPath of a ConfigMap volume, or a folder of ResourceInterpreterCustomization files)`;
  }
  if (config.certDir) {
    if (!existsSync(config.certDir)) return `--cert-dir ${config.certDir}: no such directory`;
    const absent = ['tls.crt', 'tls.key'].filter((name) => !existsSync(join(config.certDir!, name)));
    if (absent.length > 0) {
      return `--cert-dir ${config.certDir} has no ${absent.join(' and no ')}: it must hold tls.crt (the serving certificate, PEM, optionally followed by intermediates) and tls.key (its private key, PEM), the layout of a kubernetes.io/tls Secret mounted as a volume (cert-manager writes one, with ca.crt); for files named otherwise use --tls-cert-file and --tls-key-file`;
    }
  }
  for (const [flag, file] of [
    ['--tls-cert-file', config.tlsCertFile],
    ['--tls-key-file', config.tlsKeyFile],
  ] as const) {
    if (file && !existsSync(file)) return `${flag} ${file}: no such file`;
  }
  return undefined;
}
