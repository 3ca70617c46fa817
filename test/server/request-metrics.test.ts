import { Counter, Histogram, Registry, type OpenMetricsContentType } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { DURATION_BUCKETS, RequestMetrics } from '../../src/server/request-metrics.ts';

const NAMES = { requests: 'x_requests_total', duration: 'x_request_duration_seconds' };
const HELP = { requests: 'Requests.', duration: 'Durations.' };

/** The same two series made of prom-client's own Counter and Histogram: the reference. */
function promClientPair(registry: Registry) {
  const counter = new Counter({ name: NAMES.requests, help: HELP.requests, labelNames: ['kind', 'operation', 'source', 'code'], registers: [registry] });
  const histogram = new Histogram({ name: NAMES.duration, help: HELP.duration, labelNames: ['kind', 'operation', 'source'], buckets: [...DURATION_BUCKETS], registers: [registry] });
  return (kind: string, operation: string, source: string, code: string, seconds: number) => {
    counter.inc({ kind, operation, source, code });
    histogram.observe({ kind, operation, source }, seconds);
  };
}

/** A registry that exposes OpenMetrics (prom-client's types tie a registry to one content type). */
function openMetricsRegistry(): Registry {
  const registry = new Registry<OpenMetricsContentType>();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  return registry as unknown as Registry;
}

/** Durations on, just under and just over every bound, plus beyond the last one. */
function observations(): Array<[string, string, string, string, number]> {
  const kinds = ['apps.kruise.io/v1alpha1/CloneSet', 'argoproj.io/v1alpha1/Workflow', 'other'];
  const operations = ['InterpretHealth', 'AggregateStatus', 'other'];
  const out: Array<[string, string, string, string, number]> = [];
  let i = 0;
  for (const bound of [...DURATION_BUCKETS, 0.0001, 12, 30]) {
    for (const seconds of [bound, bound * 0.999, bound * 1.001]) {
      const kind = kinds[i % kinds.length]!;
      const operation = operations[Math.floor(i / 2) % operations.length]!;
      out.push([kind, operation, i % 5 === 0 ? 'lua' : 'typescript', i % 7 === 0 ? '500' : '200', seconds]);
      i++;
    }
  }
  return out;
}

describe('RequestMetrics', () => {
  it('exposes the text prom-client exposes for the same observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const metrics = new RequestMetrics(ours, NAMES, HELP);
    const reference = promClientPair(theirs);
    for (const [kind, operation, source, code, seconds] of observations()) {
      metrics.observe(kind, operation, source, code, seconds);
      reference(kind, operation, source, code, seconds);
    }
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('x_request_duration_seconds_bucket{le="0.0005",kind="apps.kruise.io/v1alpha1/CloneSet",operation="InterpretHealth",source="lua"} 1');
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it('exposes the same OpenMetrics text', async () => {
    const ours = openMetricsRegistry();
    const theirs = openMetricsRegistry();
    const metrics = new RequestMetrics(ours, NAMES, HELP);
    const reference = promClientPair(theirs);
    for (const [kind, operation, source, code, seconds] of observations().slice(0, 9)) {
      metrics.observe(kind, operation, source, code, seconds);
      reference(kind, operation, source, code, seconds);
    }
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toMatch(/# EOF\n$/);
  });

  it('escapes label values as prom-client does', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const metrics = new RequestMetrics(ours, NAMES, HELP);
    const reference = promClientPair(theirs);
    metrics.observe('a"b\\c\nd', 'InterpretHealth', 'typescript', '200', 0.002);
    reference('a"b\\c\nd', 'InterpretHealth', 'typescript', '200', 0.002);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('is emptied by the registry reset, and counts again afterwards', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics(registry, NAMES, HELP);
    metrics.observe('k', 'InterpretHealth', 'typescript', '200', 0.003);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('x_requests_total{');
    metrics.observe('k', 'InterpretHealth', 'typescript', '200', 0.003);
    expect(await registry.metrics()).toContain('x_requests_total{kind="k",operation="InterpretHealth",source="typescript",code="200"} 1');
  });

  it('cannot be registered twice under the same names', () => {
    const registry = new Registry();
    new RequestMetrics(registry, NAMES, HELP);
    expect(() => new RequestMetrics(registry, NAMES, HELP)).toThrow(/already been registered/);
  });
});
