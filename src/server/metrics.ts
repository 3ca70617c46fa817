// Prometheus metrics, with prom-client. One Registry per server instance (tests build several in one
// process). Label values are bounded: kinds we do not serve and unknown operations are counted as
// "other", so a caller cannot grow the number of series.
import { Counter, Gauge, Histogram, Registry as PromRegistry, collectDefaultMetrics } from 'prom-client';
import type { CircuitStats, StopReason } from '../isolation/worker-pool.ts';
import { OPERATIONS } from '../interpreter/types.ts';
import type { BodyBudget } from './request-body.ts';

const EVENT_LOOP_SAMPLE_MS = 100;

export const METRIC_PREFIX = 'karmada_interpreter_';
// Every reason a worker is stopped for (worker-pool.ts StopReason), exported at 0 from the start.
const STOP_REASONS: Record<StopReason, true> = { timeout: true, memory: true, crashed: true, abandoned: true, closed: true };
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface RequestLabels {
  kind: string;
  operation: string;
}

export class Metrics {
  readonly registry = new PromRegistry();
  private readonly registers = [this.registry];

  readonly requests = new Counter({
    name: `${METRIC_PREFIX}requests_total`,
    help: 'Interpreter requests by kind, operation, implementation source (typescript, lua, none) and result code (200 = successful).',
    labelNames: ['kind', 'operation', 'source', 'code'] as const,
    registers: this.registers,
  });
  readonly duration = new Histogram({
    name: `${METRIC_PREFIX}request_duration_seconds`,
    help: 'Time to answer an interpreter request, from its headers arriving to its answer being ready.',
    labelNames: ['kind', 'operation', 'source'] as const,
    buckets: DURATION_BUCKETS,
    registers: this.registers,
  });
  readonly inFlight = new Gauge({
    name: `${METRIC_PREFIX}requests_in_flight`,
    help: 'Interpreter requests being processed.',
    registers: this.registers,
  });
  readonly connectionsDropped = new Counter({
    name: `${METRIC_PREFIX}connections_dropped_total`,
    help: 'Connections closed as they arrived because the listener (webhook, metrics) had its maximum open (--max-connections for the webhook).',
    labelNames: ['listener'] as const,
    registers: this.registers,
  });
  readonly connectionsClosed = new Counter({
    name: `${METRIC_PREFIX}connections_closed_total`,
    help: 'Open connections closed by the server, by listener and reason: idle_at_limit (an idle keep-alive connection closed so a new one fits under the maximum), unanswered (node closed it on a client error with requests unanswered).',
    labelNames: ['listener', 'reason'] as const,
    registers: this.registers,
  });
  private readonly openConnections = new Map<string, () => number>();
  readonly luaTimeouts = new Counter({
    name: `${METRIC_PREFIX}lua_timeouts_total`,
    help: 'Lua customization calls stopped at their time limit, by kind and operation.',
    labelNames: ['kind', 'operation'] as const,
    registers: this.registers,
  });
  readonly workersStopped = new Counter({
    name: `${METRIC_PREFIX}untrusted_workers_stopped_total`,
    help: 'Worker threads terminated from outside because a call hit a limit (timeout, memory) or crashed; each is replaced.',
    labelNames: ['reason'] as const,
    registers: this.registers,
  });
  readonly compileCache = new Counter({
    name: `${METRIC_PREFIX}lua_compile_cache_total`,
    help: 'Lua calls by whether their script was already compiled in the worker that ran them (result: hit, miss).',
    labelNames: ['result'] as const,
    registers: this.registers,
  });
  /** The worker pool's circuit breakers, read when Prometheus scrapes (watchUntrustedWork sets it). */
  private circuits: () => CircuitStats[] = () => [];
  // One series per customization whose circuit is not closed, or that has answered calls at once: labels are
  // the loaded customizations' names (state preservation has no breaker), bounded by the configuration.
  readonly luaCircuitOpen = new Gauge({
    name: `${METRIC_PREFIX}lua_circuit_open`,
    help: 'Customizations whose calls are answered at once after timeouts in a row (circuit breaker): 1 while open or while one call is tried, by customization.',
    labelNames: ['customization'] as const,
    registers: this.registers,
    collect: () => {
      this.luaCircuitOpen.reset();
      for (const circuit of this.circuits()) if (circuit.state !== 'closed') this.luaCircuitOpen.set({ customization: circuit.key }, 1);
    },
  });
  readonly luaCircuitRefused = new Counter({
    name: `${METRIC_PREFIX}lua_circuit_refused_total`,
    help: "Calls answered at once, without running, because their customization's circuit was open, by customization.",
    labelNames: ['customization'] as const,
    registers: this.registers,
    collect: () => {
      // The pool keeps the totals; a customization it forgot (an idle one, past thousands) drops its series.
      this.luaCircuitRefused.reset();
      for (const circuit of this.circuits()) if (circuit.refused > 0) this.luaCircuitRefused.inc({ customization: circuit.key }, circuit.refused);
    },
  });
  readonly certificateReloads = new Counter({
    name: `${METRIC_PREFIX}certificate_reloads_total`,
    help: 'Serving certificate reload attempts by result.',
    labelNames: ['result'] as const,
    registers: this.registers,
  });
  readonly certificateExpiry = new Gauge({
    name: `${METRIC_PREFIX}certificate_expiry_timestamp_seconds`,
    help: 'Expiry (Unix time) of the serving certificate in use.',
    registers: this.registers,
  });
  readonly customizationReloads = new Counter({
    name: `${METRIC_PREFIX}lua_customization_reloads_total`,
    help: 'Reloads of user customizations: applied, or rejected (the last good set keeps serving).',
    labelNames: ['result'] as const,
    registers: this.registers,
  });
  readonly customizationLoadErrors = new Gauge({
    name: `${METRIC_PREFIX}lua_customization_load_errors`,
    help: 'Problems in the last load of customization files: at start a broken file is not served; after a rejected reload its last good copy serves (lua_customization_serving_last_good).',
    registers: this.registers,
  });
  readonly customizationServingLastGood = new Gauge({
    name: `${METRIC_PREFIX}lua_customization_serving_last_good`,
    help: 'Customization files whose last reload failed and whose last good copy keeps serving: 1 for each such file, none once a reload applies.',
    labelNames: ['file'] as const,
    registers: this.registers,
  });

  constructor(options: { defaultMetrics?: boolean; version?: string } = {}) {
    // Counters whose label sets are known are exported at 0 from the start, so the first increment shows
    // in rate() and increase() and alert rules need no `or vector(0)` (manifests/components/alerts).
    for (const reason of Object.keys(STOP_REASONS)) this.workersStopped.labels(reason).inc(0);
    for (const result of ['hit', 'miss']) this.compileCache.labels(result).inc(0);
    for (const result of ['success', 'error']) this.certificateReloads.labels(result).inc(0);
    for (const result of ['applied', 'rejected']) this.customizationReloads.labels(result).inc(0);
    for (const listener of ['webhook', 'metrics']) this.connectionsDropped.labels(listener).inc(0);
    // The event-loop delay is sampled every 100 ms, not prom-client's 10: each sample wakes an idle server.
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: '', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    new Gauge({
      name: `${METRIC_PREFIX}build_info`,
      help: 'Always 1: the version of this server and of the Node.js it runs on.',
      labelNames: ['version', 'node'] as const,
      registers: this.registers,
    }).set({ version: options.version ?? 'unknown', node: process.version }, 1);
  }

  /** Gauges read when Prometheus scrapes: the body budget's use. */
  watchBodyBudget(budget: BodyBudget): void {
    new Gauge({
      name: `${METRIC_PREFIX}request_body_bytes_in_flight`,
      help: 'Request bytes received and held by interpreter calls being read or answered (bounded by --inflight-body-limit).',
      registers: this.registers,
      collect() {
        this.set(budget.used);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}requests_waiting_for_body_budget`,
      help: 'Request bodies paused until room is free under --inflight-body-limit.',
      registers: this.registers,
      collect() {
        this.set(budget.waiting);
      },
    });
  }

  /** A gauge read when Prometheus scrapes: a listener's open connections. */
  watchConnections(listener: 'webhook' | 'metrics', open: () => number): void {
    if (this.openConnections.size === 0) {
      const listeners = this.openConnections;
      new Gauge({
        name: `${METRIC_PREFIX}connections_open`,
        help: 'Connections open by listener (webhook, metrics), TLS handshake done or not.',
        labelNames: ['listener'] as const,
        registers: this.registers,
        collect() {
          for (const [name, count] of listeners) this.set({ listener: name }, count());
        },
      });
    }
    this.openConnections.set(listener, open);
  }

  /** Gauges read when Prometheus scrapes: the worker pool (with its circuit breakers) and the loaded customizations. */
  watchUntrustedWork(
    stats: () => { workers: number; busy: number; queued: number; circuits?: CircuitStats[] },
    luaTargets: () => { builtin: number; user: number },
  ): void {
    new Gauge({
      name: `${METRIC_PREFIX}untrusted_workers`,
      help: 'Worker threads for Lua customizations and state-preservation JSONPath, by state (busy, idle).',
      labelNames: ['state'] as const,
      registers: this.registers,
      collect() {
        const s = stats();
        this.set({ state: 'busy' }, s.busy);
        this.set({ state: 'idle' }, s.workers - s.busy);
      },
    });
    this.circuits = () => stats().circuits ?? [];
    new Gauge({
      name: `${METRIC_PREFIX}untrusted_calls_queued`,
      help: 'Lua and JSONPath calls waiting for a free worker.',
      registers: this.registers,
      collect() {
        this.set(stats().queued);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}lua_customization_targets`,
      help: 'Kinds served by Lua customizations, by origin.',
      labelNames: ['origin'] as const,
      registers: this.registers,
      collect() {
        const targets = luaTargets();
        this.set({ origin: 'builtin' }, targets.builtin);
        this.set({ origin: 'user' }, targets.user);
      },
    });
  }

  /** Exports karmada_interpreter_lua_timeouts_total at 0 for each served kind and operation (at start and after a reload). */
  servedKinds(served: readonly { apiVersion: string; kind: string; operations: readonly string[] }[]): void {
    for (const { apiVersion, kind, operations } of served) {
      for (const operation of operations) this.luaTimeouts.labels(`${apiVersion}/${kind}`, operation).inc(0);
    }
  }

  private readonly series = new Map<string, { count: () => void; time: (seconds: number) => void }>();

  /** Counts one interpreter request and its duration (label children cached per label set). */
  observeRequest(labels: RequestLabels, source: string, code: string, seconds: number): void {
    const key = `${labels.kind} ${labels.operation} ${source} ${code}`;
    let series = this.series.get(key);
    if (!series) {
      const counter = this.requests.labels(labels.kind, labels.operation, source, code);
      const histogram = this.duration.labels(labels.kind, labels.operation, source);
      series = { count: () => counter.inc(), time: (s) => histogram.observe(s) };
      this.series.set(key, series);
    }
    series.count();
    series.time(seconds);
  }

  /** Bounded label values for one request. */
  labels(kind: string | undefined, operation: string | undefined, served: (kind: string) => boolean): RequestLabels {
    return {
      kind: kind && served(kind) ? kind : 'other',
      operation: operation && (OPERATIONS as readonly string[]).includes(operation) ? operation : 'other',
    };
  }
}
