// Counters whose label sets are known are exported at 0 by a fresh registry, so a first increment shows
// in rate() and increase() and the alert rules (manifests/components/alerts) need no `or vector(0)`.
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/server/metrics.ts';

describe('Metrics', () => {
  it('a fresh registry exports the counters with known label sets at 0', async () => {
    const text = await new Metrics({ defaultMetrics: false }).registry.metrics();
    for (const reason of ['timeout', 'memory', 'crashed', 'abandoned', 'closed']) {
      expect(text).toContain(`karmada_interpreter_untrusted_workers_stopped_total{reason="${reason}"} 0\n`);
    }
    for (const result of ['hit', 'miss']) expect(text).toContain(`karmada_interpreter_lua_compile_cache_total{result="${result}"} 0\n`);
    for (const result of ['success', 'error']) expect(text).toContain(`karmada_interpreter_certificate_reloads_total{result="${result}"} 0\n`);
    for (const result of ['applied', 'rejected']) expect(text).toContain(`karmada_interpreter_lua_customization_reloads_total{result="${result}"} 0\n`);
    for (const listener of ['webhook', 'metrics']) expect(text).toContain(`karmada_interpreter_connections_dropped_total{listener="${listener}"} 0\n`);
  });

  it('servedKinds exports the Lua timeouts counter at 0 for each served kind and operation, and keeps counts', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const cloneSet = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', operations: ['InterpretHealth', 'InterpretReplica'] };
    metrics.servedKinds([cloneSet]);
    metrics.luaTimeouts.inc({ kind: 'apps.kruise.io/v1alpha1/CloneSet', operation: 'InterpretHealth' });
    metrics.servedKinds([cloneSet]); // after a reload: counts stay
    const text = await metrics.registry.metrics();
    expect(text).toContain('karmada_interpreter_lua_timeouts_total{kind="apps.kruise.io/v1alpha1/CloneSet",operation="InterpretHealth"} 1\n');
    expect(text).toContain('karmada_interpreter_lua_timeouts_total{kind="apps.kruise.io/v1alpha1/CloneSet",operation="InterpretReplica"} 0\n');
  });
});
