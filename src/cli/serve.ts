// `serve`: the HTTPS webhook server. This file is the command (flags, help); the wiring is src/server/start.ts.
import { ConfigError, SERVE_OPTIONS, optionsHelp, serveConfig, type ServeConfig } from '../config.ts';

export const summary = 'serve the interpreter webhook over HTTPS';
export const help = `Usage: karmada-interpreter serve [options]

Serves POST /interpret (and /interpret/<any path>) for Karmada, plus /healthz, /readyz and /metrics.
Without --cert-dir or --tls-cert-file/--tls-key-file a self-signed CA and serving certificate are
used (SANs: localhost, 127.0.0.1, ::1 and every --tls-san): generated at the first start and kept in
--self-signed-dir for later ones, renewed 30 days before expiry; the CA file's path is logged.
Lua customizations and state-preservation JSONPath run on worker threads with time and memory limits.

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
  const { startServing } = await import('../server/start.ts');
  await startServing(config);
  return new Promise<number>(() => undefined); // runs until a signal ends the process
}
