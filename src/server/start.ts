// The running server: logger, registry, TLS (with rotation), app, optional registration, graceful
// shutdown. Started by `serve` (src/cli/serve.ts), which begins the certificate work before importing this.
import { pino } from 'pino';
import type { ServeConfig } from '../config.ts';
import { createRegistry } from '../interpreter/setup.ts';
import { ExchangeRecorder } from '../record/recorder.ts';
import type { Registrar } from '../register/registrar.ts';
import { buildApp } from './app.ts';
import { LuaMetrics } from './lua-metrics.ts';
import { Metrics } from './metrics.ts';
import { Readiness } from './readiness.ts';
import { DEFAULT_SANS } from './default-sans.ts';
import type { SelfSignedFiles } from './self-signed-store.ts';
import { CertificateWatcher, readKeyPair } from './tls.ts';

export interface ServingCertificate {
  certFile: string;
  keyFile: string;
  /** Set when the self-signed default is used (generated now or kept from an earlier start). */
  selfSigned?: SelfSignedFiles;
}

const LOG_BUFFER_BYTES = 4096;
const LOG_FLUSH_MS = 100;

/** `certificate` is already under way (a first start generates its self-signed set on a worker thread meanwhile). */
export async function startServing(config: ServeConfig, certificate: Promise<ServingCertificate>) {
  // stdout through a 4 KiB buffer flushed at least every 100 ms: a line per interpreter call written
  // on its own cost an fs.write each (~12% of the server's CPU under load). pino flushes it
  // synchronously when the process exits, crashes included; only a SIGKILL can lose the last 100 ms.
  const logger = pino(
    { level: config.logLevel, base: { service: 'karmada-interpreter-webhook' } },
    pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS }),
  );
  const metrics = new Metrics();
  const readiness = new Readiness();
  readiness.set('tls', false, 'not serving yet');

  let luaMetrics: LuaMetrics | undefined;
  let registrar: Registrar | undefined;
  const loaded = await createRegistry({
    customizations: config.customizations,
    luaTimeoutMs: config.luaTimeoutMs,
    watch: true,
    onReload(result, applied) {
      luaMetrics?.recordReload(applied, result.errors.length);
      if (applied) void registrar?.refresh('customizations reloaded');
      reportCustomizations(result.errors, applied ? 'reloaded customizations' : 'customization reload rejected; the last good set keeps serving');
    },
  });
  luaMetrics = new LuaMetrics(metrics, loaded);
  readiness.set('registry', true, `${loaded.registry.served().length} kinds`);
  // A broken customization file is reported, not fatal: the other kinds must keep being served.
  function reportCustomizations(errors: Array<{ file: string; message: string }>, message: string) {
    readiness.set('customizations', true, errors.length === 0 ? 'all customization files loaded' : errors.map((e) => `${e.file}: ${e.message}`).join('; '));
    if (errors.length > 0) logger.error({ errors }, message);
    else logger.info({ kinds: loaded.registry.served().length }, message);
  }
  if (loaded.problems.length > 0) reportCustomizations(loaded.problems, 'some customization files could not be used');
  else readiness.set('customizations', true, 'all customization files loaded');

  // An unusable certificate ends the start; the registry's watchers must not keep the process alive.
  const { certFile, keyFile, selfSigned, pair } = await certificate
    .then(async (files) => ({ ...files, pair: await readKeyPair(files.certFile, files.keyFile) }))
    .catch((error: unknown) => {
      loaded.close();
      throw error;
    });
  if (selfSigned) {
    logger.info(
      { caFile: selfSigned.caFile, certFile, sans: [...DEFAULT_SANS, ...config.tlsSans] },
      selfSigned.reused
        ? 'serving the self-signed certificate kept from an earlier start; trust the CA file (curl --cacert)'
        : 'generated a self-signed CA and serving certificate, kept for later starts; trust the CA file (curl --cacert)',
    );
  }
  metrics.certificateExpiry.set(pair.notAfter.getTime() / 1000);

  const recorder = config.record
    ? new ExchangeRecorder({ dir: config.record, maxFiles: config.recordMaxFiles, keepSecrets: config.recordKeepSecrets, logger, metricsRegistry: metrics.registry })
    : undefined;
  if (recorder) logger.info({ dir: recorder.dir, maxFiles: config.recordMaxFiles, redacted: !config.recordKeepSecrets }, 'recording every interpreter exchange');
  const onExchange = recorder ? recorder.record.bind(recorder) : undefined;
  // Set on SIGTERM: from then on every answer carries Connection: close (see buildApp).
  let draining = false;
  const app = buildApp({ registry: loaded.registry, logger, metrics, readiness, bodyLimit: config.bodyLimit, inflightBodyLimit: config.inflightBodyLimit, https: pair, onExchange, draining: () => draining });
  const watcher = new CertificateWatcher(certFile, keyFile, pair, {
    onReload(next) {
      (app.server as import('node:https').Server).setSecureContext({ cert: next.cert, key: next.key, minVersion: 'TLSv1.2' });
      metrics.certificateReloads.inc({ result: 'success' });
      metrics.certificateExpiry.set(next.notAfter.getTime() / 1000);
      logger.info({ certFile, notAfter: next.notAfter.toISOString() }, 'serving certificate reloaded');
      void registrar?.refresh('serving certificate rotated');
    },
    onError(error) {
      metrics.certificateReloads.inc({ result: 'error' });
      logger.error({ err: error, certFile }, 'new serving certificate is unusable; keeping the last good one');
    },
  });

  if (config.register) {
    // Loaded only with --register: @kubernetes/client-node alone takes ~0.9 s to import.
    const { Registrar } = await import('../register/registrar.ts');
    const { Counter } = await import('prom-client');
    const registrations = new Counter({
      name: 'karmada_interpreter_registrations_total',
      help: 'Applies of the ResourceInterpreterWebhookConfiguration in karmada-apiserver (--register) by result: created, updated, unchanged, error',
      labelNames: ['result'],
      registers: [metrics.registry],
    });
    registrar = new Registrar(() => loaded.registry.served(), { ...config.register, certFile }, logger, {}, (result) => registrations.inc({ result }));
  }
  await app.listen({ port: config.port, host: config.host });
  watcher.start();
  readiness.set('tls', true);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ host: config.host, port, kinds: loaded.registry.served().length, readyMs: Math.round(performance.now()) }, 'serving'); // since the process started
  logger.flush(); // whoever waits for this line should not wait for the buffer
  void registrar?.refresh('start');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    draining = true;
    readiness.set('shutdown', false, `received ${signal}`);
    registrar?.close();
    logger.info({ signal, delayMs: config.shutdownDelayMs }, 'shutting down: readiness off, still serving until endpoints drop us');
    logger.flush();
    await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
    const forced = setTimeout(() => {
      logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'in-flight requests did not finish in time; closing their connections and exiting');
      app.server.closeAllConnections();
      process.exit(1);
    }, config.shutdownTimeoutMs);
    forced.unref();
    // Stops accepting connections, closes idle keep-alive ones and waits for in-flight requests (whose
    // answers carry Connection: close). The Lua runtime and watchers stay up until those have answered.
    logger.info('closing: no new connections, finishing in-flight requests');
    await app.close();
    await recorder?.flush();
    watcher.close();
    loaded.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return { app, port, logger, close: async () => { registrar?.close(); watcher.close(); await app.close(); await recorder?.flush(); loaded.close(); } };
}
