// Prometheus metrics. One prom-client Registry per server instance (tests build several apps in one
// process). Label values are bounded: kinds we do not serve and unknown operations are folded into
// "other", so a caller cannot grow the series without limit.
import { Counter, Gauge, Histogram, Registry as PromRegistry, collectDefaultMetrics } from 'prom-client';
import { OPERATIONS } from '../interpreter/types.js';

export const METRIC_PREFIX = 'karmada_interpreter_';

export class Metrics {
  readonly registry = new PromRegistry();
  readonly requests = new Counter({
    name: `${METRIC_PREFIX}requests_total`,
    help: 'Interpreter requests by kind, operation, implementation source (typescript, lua, none) and result code (200 = successful).',
    labelNames: ['kind', 'operation', 'source', 'code'] as const,
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: `${METRIC_PREFIX}request_duration_seconds`,
    help: 'Time to answer an interpreter request, from body received to response ready.',
    labelNames: ['kind', 'operation', 'source'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  /** Interpreter requests being processed; read at scrape time (Gauge.inc/dec hash labels on every call). */
  inFlight = 0;
  private readonly inFlightGauge: Gauge = new Gauge({
    name: `${METRIC_PREFIX}requests_in_flight`,
    help: 'Interpreter requests being processed.',
    registers: [this.registry],
    collect: (): void => this.inFlightGauge.set(this.inFlight),
  });
  readonly luaTimeouts = new Counter({
    name: `${METRIC_PREFIX}lua_timeouts_total`,
    help: 'Lua customization calls stopped at their deadline, by kind and operation.',
    labelNames: ['kind', 'operation'] as const,
    registers: [this.registry],
  });
  readonly certificateReloads = new Counter({
    name: `${METRIC_PREFIX}certificate_reloads_total`,
    help: 'Serving certificate reload attempts by result.',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly certificateExpiry = new Gauge({
    name: `${METRIC_PREFIX}certificate_expiry_timestamp_seconds`,
    help: 'Expiry (Unix time) of the serving certificate in use.',
    registers: [this.registry],
  });

  /** Bound label sets per series: prom-client validates and hashes a label object on every call (~20 µs a request). */
  private readonly requestSeries = new Map<string, { count: Counter.Internal; duration: Histogram.Internal<'kind' | 'operation' | 'source'> }>();

  /** Counts one interpreter request and records its duration; label values must already be bounded. */
  observeRequest(labels: { kind: string; operation: string }, source: string, code: string, seconds: number): void {
    const key = `${labels.kind}\u0000${labels.operation}\u0000${source}\u0000${code}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      series = {
        count: this.requests.labels({ ...labels, source, code }),
        duration: this.duration.labels({ ...labels, source }),
      };
      this.requestSeries.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** Bounded label values for one request. */
  labels(kind: string | undefined, operation: string | undefined, served: (kind: string) => boolean) {
    return {
      kind: kind && served(kind) ? kind : 'other',
      operation: operation && (OPERATIONS as readonly string[]).includes(operation) ? operation : 'other',
    };
  }
}
