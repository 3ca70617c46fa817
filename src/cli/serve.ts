// `serve`: the HTTPS webhook server. This file is the command (flags, help) and the start order; the
// wiring is src/server/start.ts, imported only after the certificate work has begun (see startServer).
import { join } from 'node:path';
import { ConfigError, SERVE_OPTIONS, optionsHelp, serveConfig, type ServeConfig } from '../config.ts';
import { tuneGarbageCollectionForServing } from '../server/gc-tuning.ts';
import { selfSignedFiles } from '../server/self-signed-store.ts';
import type { ServingCertificate } from '../server/start.ts'; // a type only: start.js is imported in startServer

export const summary = 'serve the interpreter webhook over HTTPS';
export const help = `Usage: karmada-interpreter serve [options]

Serves POST /interpret (and /interpret/<any path>) for Karmada, plus /healthz, /readyz and /metrics.
Without --cert-dir or --tls-cert-file/--tls-key-file a self-signed CA and serving certificate are
used (SANs: localhost, 127.0.0.1, ::1 and every --tls-san): generated at the first start and kept in
--self-signed-dir for later ones, renewed 30 days before expiry; the CA file's path is logged.

Options:
${optionsHelp(SERVE_OPTIONS)}
`;

export async function run(args: string[]): Promise<number> {
  let config: ServeConfig & { help: boolean };
  try {
    config = serveConfig(args);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`serve: ${error.message}\n\n${help}`);
      return 2;
    }
    throw error;
  }
  if (config.help) {
    process.stdout.write(help);
    return 0;
  }
  await startServer(config);
  return new Promise<number>(() => undefined); // runs until a signal ends the process
}

/** Where the serving certificate comes from: --cert-dir, --tls-cert-file/--tls-key-file, else the self-signed default. */
async function servingCertificate(config: ServeConfig): Promise<ServingCertificate> {
  if (config.certDir) return { certFile: join(config.certDir, 'tls.crt'), keyFile: join(config.certDir, 'tls.key') };
  if (config.tlsCertFile && config.tlsKeyFile) return { certFile: config.tlsCertFile, keyFile: config.tlsKeyFile };
  const selfSigned = await selfSignedFiles(config.tlsSans, config.selfSignedDir);
  return { certFile: selfSigned.certFile, keyFile: selfSigned.keyFile, selfSigned };
}

/**
 * Starts the server. The certificate comes first: a first start generates its self-signed set on a
 * worker thread while this thread imports the server (fastify, Lua, metrics: ~0.45 s), which is why
 * src/server/start.ts is imported here and not at the top.
 */
export async function startServer(config: ServeConfig) {
  tuneGarbageCollectionForServing();
  const certificate = servingCertificate(config);
  certificate.catch(() => undefined); // awaited in startServing; this only keeps an early failure from counting as unhandled
  const { startServing } = await import('../server/start.ts');
  return startServing(config, certificate);
}
