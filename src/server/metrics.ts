// Prometheus metrics. One prom-client Registry per server instance (tests build several apps in one
// process). Label values are bounded: kinds we do not serve and unknown operations are folded into
// "other", so a caller cannot grow the series without limit.
import { Counter, Gauge, Registry as PromRegistry, collectDefaultMetrics } from 'prom-client';
import { OPERATIONS } from '../interpreter/types.ts';
import type { BodyBudget } from './body-budget.ts';
import { RequestMetrics } from './request-metrics.ts';

export const METRIC_PREFIX = 'karmada_interpreter_';

export class Metrics {
  readonly registry = new PromRegistry();
  /** requests_total and request_duration_seconds, updated on every call (request-metrics.ts). */
  private readonly requestSeries = new RequestMetrics(
    this.registry,
    { requests: `${METRIC_PREFIX}requests_total`, duration: `${METRIC_PREFIX}request_duration_seconds` },
    {
      requests: 'Interpreter requests by kind, operation, implementation source (typescript, lua, none) and result code (200 = successful).',
      duration: 'Time to answer an interpreter request, from body received to response ready.',
    },
  );
  /** Interpreter requests being processed; read at scrape time (Gauge.inc/dec hash labels on every call). */
  inFlight = 0;
  private readonly inFlightGauge: Gauge = new Gauge({
    name: `${METRIC_PREFIX}requests_in_flight`,
    help: 'Interpreter requests being processed.',
    registers: [this.registry],
    collect: (): void => this.inFlightGauge.set(this.inFlight),
  });
  private bodyBudget: BodyBudget | undefined;
  private readonly bodyBytesGauge: Gauge = new Gauge({
    name: `${METRIC_PREFIX}request_body_bytes_in_flight`,
    help: 'Request bytes reserved by interpreter calls being read or worked on (bounded by --inflight-body-limit).',
    registers: [this.registry],
    collect: (): void => this.bodyBytesGauge.set(this.bodyBudget?.bytesInUse ?? 0),
  });
  private readonly bodyWaitingGauge: Gauge = new Gauge({
    name: `${METRIC_PREFIX}requests_waiting_for_body_budget`,
    help: 'Interpreter calls waiting, unread, for room under --inflight-body-limit.',
    registers: [this.registry],
    collect: (): void => this.bodyWaitingGauge.set(this.bodyBudget?.waiting ?? 0),
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

  /** Counts one interpreter request and records its duration; label values must already be bounded. */
  observeRequest(labels: { kind: string; operation: string }, source: string, code: string, seconds: number): void {
    this.requestSeries.observe(labels.kind, labels.operation, source, code, seconds);
  }

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** Reports this budget's use in the two body-budget gauges (read at scrape time). */
  watchBodyBudget(budget: BodyBudget): void {
    this.bodyBudget = budget;
  }

  /** Bounded label values for one request. */
  labels(kind: string | undefined, operation: string | undefined, served: (kind: string) => boolean) {
    return {
      kind: kind && served(kind) ? kind : 'other',
      operation: operation && (OPERATIONS as readonly string[]).includes(operation) ? operation : 'other',
    };
  }
}
