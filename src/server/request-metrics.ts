// The two series every interpreter call updates: requests_total{kind,operation,source,code} and
// request_duration_seconds{kind,operation,source}. They are counted in plain numbers on the hot path
// and handed to prom-client's registry as metrics it formats at scrape time.
//
// Why not prom-client's Counter and Histogram: even with label sets bound once, each inc()/observe()
// validates and hashes its label object again (hashObject sorts and joins), ~5 µs per request in
// process and ~10 µs (~6% of a small request's CPU) in a server profile. Here an observation is a Map
// lookup and a few additions. The exposition is prom-client's own (its Registry formats what get()
// returns, in the same shape its Counter and Histogram return), and a test compares our text with
// theirs for the same observations.
import type { Metric, Registry as PromRegistry } from 'prom-client';

export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

interface DurationSeries {
  labels: { kind: string; operation: string; source: string };
  /** Observations per bucket, not cumulative (index DURATION_BUCKETS.length: above the last bound). */
  buckets: Float64Array;
  sum: number;
  count: number;
}

interface CountSeries {
  labels: { kind: string; operation: string; source: string; code: string };
  value: number;
}

interface MetricValue {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName?: string;
  /** prom-client's buckets carry `exemplar: null` when exemplars are off; getMetricsAsJSON shows it. */
  exemplar?: null;
}

interface ExposedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: 'sum' }>;
  getForPromString?(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: 'sum' }>;
  reset(): void;
}

export class RequestMetrics {
  private readonly counts = new Map<string, CountSeries>();
  private readonly durations = new Map<string, DurationSeries>();

  constructor(
    registry: PromRegistry,
    names: { requests: string; duration: string },
    help: { requests: string; duration: string },
  ) {
    const counter: ExposedMetric = {
      name: names.requests,
      help: help.requests,
      type: 'counter',
      aggregator: 'sum',
      get: async () => this.snapshot(counter, [...this.counts.values()].map((series) => ({ labels: { ...series.labels }, value: series.value }))),
      reset: () => this.counts.clear(),
    };
    const histogram: ExposedMetric = {
      name: names.duration,
      help: help.duration,
      type: 'histogram',
      aggregator: 'sum',
      // What the registry's text format reads: per bucket the `le` label, the series labels shared.
      getForPromString: async () => this.snapshot(histogram, this.histogramValues(names.duration, false)),
      // What getMetricsAsJSON reads: the labels merged, as prom-client's Histogram.get() gives them.
      get: async () => this.snapshot(histogram, this.histogramValues(names.duration, true)),
      reset: () => this.durations.clear(),
    };
    // prom-client's Registry takes any object of its metric shape (name, help, type, get, reset); its
    // TypeScript type names only its own classes.
    registry.registerMetric(counter as unknown as Metric);
    registry.registerMetric(histogram as unknown as Metric);
  }

  /** Counts one call and records its duration; label values must already be bounded. */
  observe(kind: string, operation: string, source: string, code: string, seconds: number): void {
    const durationKey = `${kind}\u0000${operation}\u0000${source}`;
    let duration = this.durations.get(durationKey);
    if (!duration) {
      duration = { labels: { kind, operation, source }, buckets: new Float64Array(DURATION_BUCKETS.length + 1), sum: 0, count: 0 };
      this.durations.set(durationKey, duration);
    }
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
    duration.buckets[bucket]!++;
    duration.sum += seconds;
    duration.count++;

    const countKey = `${durationKey}\u0000${code}`;
    let count = this.counts.get(countKey);
    if (!count) {
      count = { labels: { kind, operation, source, code }, value: 0 };
      this.counts.set(countKey, count);
    }
    count.value++;
  }

  private snapshot(metric: ExposedMetric, values: MetricValue[]) {
    return { name: metric.name, help: metric.help, type: metric.type, values, aggregator: metric.aggregator };
  }

  private histogramValues(name: string, merged: boolean): MetricValue[] {
    const values: MetricValue[] = [];
    const value = (le: number | string | undefined, metricName: string, labels: DurationSeries['labels'], amount: number): MetricValue => {
      const own: Record<string, string | number> = le === undefined ? {} : { le };
      const exposed: MetricValue = merged ? { labels: { ...own, ...labels }, value: amount, metricName } : { labels: own, sharedLabels: { ...labels }, value: amount, metricName };
      if (le !== undefined) exposed.exemplar = null;
      return exposed;
    };
    for (const series of this.durations.values()) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((bound, i) => {
        cumulative += series.buckets[i]!;
        values.push(value(bound, `${name}_bucket`, series.labels, cumulative));
      });
      values.push(value('+Inf', `${name}_bucket`, series.labels, series.count));
      values.push(value(undefined, `${name}_sum`, series.labels, series.sum));
      values.push(value(undefined, `${name}_count`, series.labels, series.count));
    }
    return values;
  }
}
