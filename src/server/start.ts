// The running server: logger, registry and its worker threads, TLS (with rotation), the app, the
// optional plain-HTTP metrics listener, optional registration, graceful shutdown. Started by `serve`.
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import type { ServeConfig } from '../config.ts';
import { createRegistry } from '../interpreter/setup.ts';
import { CustomizationReport } from '../customizations/status.ts';
import { ExchangeRecorder } from '../record/recorder.ts';
import { serverVersion } from '../record/server-version.ts';
import type { Registrar } from '../register/registrar.ts';
import { buildApp, buildMetricsApp, FIRST_REQUEST_TIMEOUT_MS } from './app.ts';
import { ConnectionTracker, DropReporter } from './connections.ts';
import { DEFAULT_SANS } from './default-sans.ts';
import { Metrics } from './metrics.ts';
import { Readiness } from './readiness.ts';
import { selfSignedFiles, type SelfSignedFiles } from './self-signed-store.ts';
import { CertificateWatcher, readKeyPair } from './tls.ts';

const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_MS = 100;
/** The plain-HTTP metrics listener (--metrics-bind-address) serves scrapes and probes: a few connections. */
const METRICS_MAX_CONNECTIONS = 64;

interface ServingCertificate {
  certFile: string;
  keyFile: string;
  /** Set when the self-signed default is used (generated now or kept from an earlier start). */
  selfSigned?: SelfSignedFiles;
}

/** Where the serving certificate comes from: --cert-dir, --tls-cert-file/--tls-key-file, else the self-signed default. */
async function servingCertificate(config: ServeConfig): Promise<ServingCertificate> {
  if (config.certDir) return { certFile: join(config.certDir, 'tls.crt'), keyFile: join(config.certDir, 'tls.key') };
  if (config.tlsCertFile && config.tlsKeyFile) return { certFile: config.tlsCertFile, keyFile: config.tlsKeyFile };
  const selfSigned = await selfSignedFiles(config.tlsSans, config.selfSignedDir);
  return { certFile: selfSigned.certFile, keyFile: selfSigned.keyFile, selfSigned };
}

/** A listen failure that names the flags to change instead of node's bare `listen EADDRINUSE`. */
function listenError(error: unknown, flags: string): unknown {
  const code = (error as { code?: string }).code;
  const why: Record<string, string> = {
    EADDRINUSE: 'the address is already in use (another server, or an earlier one still running): choose another',
    EACCES: 'not allowed to listen there (ports below 1024 need privileges): choose another',
    EADDRNOTAVAIL: 'no network interface of this machine has that address: choose another',
  };
  return code && why[code] ? new Error(`cannot listen on ${flags}: ${why[code]} (${code})`) : error;
}

/**
 * Bounds a listener's connections (decision 0009): one that sends no request is closed, and with `max`
 * open a newcomer takes the place of the longest-idle keep-alive connection, or is closed as it arrives
 * when none is idle (counted, and logged: the first drop at once, then a line a minute while drops go on).
 * Idle connections closed for a newcomer, and connections node closed with requests unanswered, are
 * counted and logged the same way.
 */
function boundConnections(server: Server, listener: 'webhook' | 'metrics', max: number, metrics: Metrics, logger: Logger): ConnectionTracker {
  const drops = new DropReporter((dropped) => logger.warn({ listener, dropped, maxConnections: max }, 'connections refused: the maximum are open, none idle'));
  const idleClosed = new DropReporter((closed) =>
    logger.info({ listener, closed, maxConnections: max }, 'idle keep-alive connections closed to make room for new ones: the maximum are open'),
  );
  let cut = { requests: 0, remoteAddresses: new Set<string>(), codes: new Set<string>() };
  const cuts = new DropReporter((connections) => {
    logger.warn(
      { listener, connections, unansweredRequests: cut.requests, remoteAddresses: [...cut.remoteAddresses], codes: [...cut.codes] },
      'connections closed by node on a client error with requests unanswered',
    );
    cut = { requests: 0, remoteAddresses: new Set(), codes: new Set() };
  });
  const connections = new ConnectionTracker(server, {
    firstRequestTimeoutMs: FIRST_REQUEST_TIMEOUT_MS,
    maxConnections: max,
    onRefused() {
      metrics.connectionsDropped.inc({ listener });
      drops.drop();
    },
    onIdleClosed() {
      metrics.connectionsClosed.inc({ listener, reason: 'idle_at_limit' });
      idleClosed.drop();
    },
    onUnanswered(report) {
      metrics.connectionsClosed.inc({ listener, reason: 'unanswered' });
      cut.requests += report.unanswered + report.unread;
      if (cut.remoteAddresses.size < 10) cut.remoteAddresses.add(report.remoteAddress);
      cut.codes.add(report.code);
      cuts.drop();
    },
  });
  metrics.watchConnections(listener, () => connections.open);
  server.once('close', () => {
    drops.close();
    idleClosed.close();
    cuts.close();
  });
  return connections;
}

/**
 * Standard output in batches of LOG_BATCH_BYTES (a write per line would be a system call per request),
 * flushed LOG_FLUSH_MS after the first line of a batch and on exit: only a SIGKILL can lose the last
 * LOG_FLUSH_MS of lines. The flush timer runs only while lines wait, so an idle server never wakes for it
 * (sonic-boom's own periodicFlush is an interval that runs for ever).
 */
function batchedStdout() {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES });
  let flushTimer: NodeJS.Timeout | undefined;
  const flushNow = () => {
    flushTimer = undefined;
    destination.flush();
  };
  return {
    write(line: string): boolean {
      flushTimer ??= setTimeout(flushNow, LOG_FLUSH_MS).unref();
      return destination.write(line);
    },
    flush(callback?: (error?: Error) => void): void {
      destination.flush(callback);
    },
  };
}

export async function startServing(config: ServeConfig) {
  const logger = pino({ level: config.logLevel, base: { service: 'karmada-interpreter-webhook' } }, batchedStdout());
  if (config.memoryFit?.lowered.length)
    logger.warn(
      { lowered: config.memoryFit.lowered, memoryLimitMiB: Math.floor(config.memoryFit.limit!.bytes / 1048576) },
      'settings left at their defaults were lowered to what the container memory limit holds (docs/operations.md, Sizing)',
    );
  const metrics = new Metrics({ version: serverVersion() });
  const readiness = new Readiness();
  readiness.set('tls', false, 'not serving yet');
  const customizationReport = new CustomizationReport(config.serveWithBrokenCustomizations);

  let registrar: Registrar | undefined;
  const loaded = await createRegistry({
    customizations: config.customizations,
    examples: config.examples,
    luaTimeoutMs: config.luaTimeoutMs,
    untrustedWork: {
      workers: config.luaWorkers,
      memoryLimitBytes: config.luaMemoryLimit,
      onStop(reason, key) {
        metrics.workersStopped.inc({ reason });
        logger.warn({ reason, customization: key }, 'stopped a worker thread running untrusted work; it is replaced');
      },
      onCompileCache: (hit) => metrics.compileCache.inc({ result: hit ? 'hit' : 'miss' }),
    },
    watch: true,
    onReload(result, applied, serving) {
      metrics.customizationReloads.inc({ result: applied ? 'applied' : 'rejected' });
      metrics.customizationLoadErrors.set(result.errors.length);
      if (applied) {
        metrics.servedKinds(loaded.registry.served());
        void registrar?.refresh('customizations reloaded');
      }
      const status = customizationReport.reload(result, applied, serving);
      metrics.customizationServingLastGood.reset();
      for (const file of status.lastGood) metrics.customizationServingLastGood.set({ file }, 1);
      readiness.set('customizations', status.ok, status.detail);
      if (result.errors.length > 0)
        logger.error(
          { errors: result.errors, servingLastGood: status.lastGood },
          'customization reload rejected; the last good set keeps serving (the last good copy of each file that failed)',
        );
      else logger.info({ kinds: loaded.registry.served().length }, 'reloaded customizations');
      if (result.warnings.length > 0) logger.warn({ warnings: result.warnings }, 'customization files loaded with warnings');
      readiness.set('registry', true, `${loaded.registry.served().length} kinds`);
    },
  });
  metrics.customizationLoadErrors.set(loaded.problems.length);
  metrics.servedKinds(loaded.registry.served());
  metrics.watchUntrustedWork(
    () => loaded.untrusted.stats(),
    () => ({ builtin: loaded.builtinLua.summary.targets, user: loaded.userLua?.summary.targets ?? 0 }),
  );
  // Workers start now when there are customizations to run, so the first call does not wait for them;
  // the server is ready once they are.
  if (loaded.builtinLua.interpreters.length + (loaded.userLua?.interpreters.length ?? 0) > 0) {
    readiness.set('workers', false, 'starting');
    void loaded.untrusted.start().then(() => readiness.set('workers', true, `${config.luaWorkers} worker threads`));
  }
  readiness.set('registry', true, `${loaded.registry.served().length} kinds`);
  // A file broken at start keeps the server unready (unless --serve-with-broken-customizations), so a
  // broken ConfigMap stops a rolling update; the other kinds are served all the same.
  const startStatus = customizationReport.start(loaded.problems);
  readiness.set('customizations', startStatus.ok, startStatus.detail);
  if (loaded.problems.length > 0)
    logger.error(
      { errors: loaded.problems, ready: startStatus.ok },
      startStatus.ok
        ? 'some customization files could not be used; calls for their kinds answer that they failed to load (--serve-with-broken-customizations)'
        : 'some customization files could not be used: unready until they load (--serve-with-broken-customizations serves the others); calls for their kinds answer that they failed to load',
    );
  if (loaded.warnings.length > 0) logger.warn({ warnings: loaded.warnings }, 'customization files loaded with warnings');
  if (loaded.examples.length > 0) logger.info({ examples: loaded.examples.map((example) => example.name) }, 'serving shipped Lua examples (--examples)');

  // An unusable certificate ends the start; the registry's watchers and workers must not keep the process alive.
  const { certFile, keyFile, selfSigned, pair } = await servingCertificate(config)
    .then(async (files) => ({ ...files, pair: await readKeyPair(files.certFile, files.keyFile) }))
    .catch(async (error: unknown) => {
      await loaded.close();
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
    ? new ExchangeRecorder({
        dir: config.record,
        maxFiles: config.recordMaxFiles,
        keepSecrets: config.recordKeepSecrets,
        logger,
        metricsRegistry: metrics.registry,
      })
    : undefined;
  if (recorder)
    logger.info({ dir: recorder.dir, maxFiles: config.recordMaxFiles, redacted: !config.recordKeepSecrets }, 'recording every interpreter exchange');
  // Set on SIGTERM: from then on every answer carries Connection: close (see buildApp).
  let draining = false;
  const app = buildApp({
    registry: loaded.registry,
    logger,
    metrics,
    readiness,
    bodyLimit: config.bodyLimit,
    inflightBodyLimit: config.inflightBodyLimit,
    bodyIdleMs: config.bodyIdleTimeoutMs,
    https: pair,
    onExchange: recorder ? (exchange, durationMs, meta) => recorder.record(exchange, durationMs, meta) : undefined,
    draining: () => draining,
    evaluatePreservation: (rules, status) => loaded.untrusted.evaluatePreservation(rules, status),
  });
  const connections = boundConnections(app.server, 'webhook', config.maxConnections, metrics, logger);
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
    // Loaded only with --register: @kubernetes/client-node is large.
    const { Registrar } = await import('../register/registrar.ts');
    const { Counter } = await import('prom-client');
    const registrations = new Counter({
      name: 'karmada_interpreter_registrations_total',
      help: 'Applies of the ResourceInterpreterWebhookConfiguration in karmada-apiserver (--register) by result: created, updated, unchanged, error',
      labelNames: ['result'],
      registers: [metrics.registry],
    });
    const { filterKinds, parseSelectors } = await import('../interpreter/kind-selector.ts');
    const served = loaded.registry.served();
    // Checked against what is served at start: a misspelled kind would otherwise silently register nothing.
    let include, exclude;
    try {
      include = parseSelectors(config.register.kinds ?? [], served, 'served kind');
      exclude = parseSelectors(config.register.excludeKinds ?? [], served, 'served kind');
    } catch (error) {
      await loaded.close();
      throw new Error(`--register-kinds/--register-exclude-kinds: ${(error as Error).message}`, { cause: error });
    }
    registrar = new Registrar(
      () => filterKinds(loaded.registry.served(), include, exclude),
      { ...config.register, certFile },
      logger,
      {},
      (result) => registrations.inc({ result }),
    );
  }
  let metricsApp: FastifyInstance | undefined;
  let listening = 'webhook';
  try {
    await app.listen({ port: config.port, host: config.host });
    if (config.metricsBindAddress) {
      listening = 'metrics';
      metricsApp = buildMetricsApp(metrics, readiness, logger);
      boundConnections(metricsApp.server, 'metrics', METRICS_MAX_CONNECTIONS, metrics, logger);
      await metricsApp.listen(config.metricsBindAddress);
    }
  } catch (error) {
    watcher.close();
    await Promise.all([app.close(), metricsApp?.close(), loaded.close()]);
    throw listenError(
      error,
      listening === 'webhook'
        ? `--port ${config.port} / --host ${config.host}`
        : `--metrics-bind-address ${config.metricsBindAddress!.host}:${config.metricsBindAddress!.port}`,
    );
  }
  watcher.start();
  readiness.set('tls', true);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const metricsAddress = metricsApp?.server.address();
  const metricsPort = typeof metricsAddress === 'object' && metricsAddress ? metricsAddress.port : undefined;
  const servedKinds = loaded.registry.served().map((served) => `${served.apiVersion} ${served.kind}`);
  const memory = config.memoryFit
    ? {
        memoryNeededMiB: Math.ceil(config.memoryFit.neededBytes / 1048576),
        memoryLimitMiB: config.memoryFit.limit && Math.floor(config.memoryFit.limit.bytes / 1048576),
      }
    : {};
  logger.info(
    {
      host: config.host,
      port,
      metricsPort,
      kinds: servedKinds.length,
      servedKinds,
      luaWorkers: config.luaWorkers,
      ...memory,
      readyMs: Math.round(performance.now()),
    },
    'serving',
  );
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
    logger.info('closing: no new connections, answering the requests in progress');
    const forced = await connections.drain(config.shutdownTimeoutMs);
    if (forced > 0) logger.warn({ connections: forced, timeoutMs: config.shutdownTimeoutMs }, 'connections still busy at the shutdown timeout were closed');
    await Promise.all([app.close(), metricsApp?.close()]);
    await recorder?.flush();
    watcher.close();
    await loaded.close();
    logger.info('stopped');
    logger.flush();
    process.exit(forced > 0 ? 1 : 0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return {
    app,
    port,
    metricsPort,
    logger,
    close: async () => {
      registrar?.close();
      watcher.close();
      await Promise.all([app.close(), metricsApp?.close()]);
      await recorder?.flush();
      await loaded.close();
    },
  };
}
