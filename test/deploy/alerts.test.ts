// The alerts component (manifests/components/alerts) is well-formed: a kustomize Component whose only
// resource is the PrometheusRule, carrying the namespace and labels itself (components are not
// transformed by the base), whose rules read metrics the server exports, and whose every alert has a
// promtool test in test/alerts/. promtool itself runs in CI (`npm run test:alerts`, scripts/check-alerts.ts,
// which extracts the rules file from the PrometheusRule: there is one copy); the unit suite does not need it.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ALERT_TESTS_DIR, PROMETHEUS_RULE_FILE, rulesFile } from '../../scripts/check-alerts.ts';
import { Metrics } from '../../src/server/metrics.ts';
import { checkAgainstSchema } from './manifest-schemas.ts';
import { HAVE_KUBECTL, kustomize } from './kubectl.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const COMPONENT = join(ROOT, 'manifests/components/alerts');
const readYaml = (path: string) => parse(readFileSync(path, 'utf8'));

describe('the alerts component', () => {
  const kustomization = readYaml(join(COMPONENT, 'kustomization.yaml'));
  const rule = readYaml(join(ROOT, PROMETHEUS_RULE_FILE));
  const base = readYaml(join(ROOT, 'manifests/kustomization.yaml'));
  const alerts: { alert: string; expr: string; for?: string; labels: Record<string, string> }[] = rule.spec.groups.flatMap((g: any) => g.rules);

  it('is a kustomize Component whose resources are the PrometheusRule, in the namespace with the common labels', () => {
    expect(kustomization).toMatchObject({ apiVersion: 'kustomize.config.k8s.io/v1alpha1', kind: 'Component', resources: ['prometheusrule.yaml'] });
    expect(readdirSync(COMPONENT).sort()).toEqual(['kustomization.yaml', 'prometheusrule.yaml']);
    expect(rule).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule' });
    expect(checkAgainstSchema(rule)).toEqual([]);
    expect(rule.metadata.namespace).toBe(base.namespace);
    expect(rule.metadata.labels).toMatchObject({ ...base.labels[0].pairs, 'app.kubernetes.io/component': 'alerts' });
  });

  it('the rules file promtool checks is the PrometheusRule spec, alert names are unique', () => {
    expect(rulesFile()).toEqual(rule.spec);
    expect(Object.keys(rulesFile())).toEqual(['groups']);
    const names = alerts.map((a) => a.alert);
    expect(new Set(names).size).toBe(names.length);
  });

  it('the down alerts use the job the service-monitor component produces (the operator names it after the Service)', () => {
    const service = readYaml(join(ROOT, 'manifests/components/service-monitor/service.yaml'));
    const down = alerts.filter((a) => a.expr.includes('up{'));
    expect(down.map((a) => a.alert).sort()).toEqual(['KarmadaInterpreterWebhookDown', 'KarmadaInterpreterWebhookTargetDown']);
    for (const a of down) expect(a.expr).toContain(`job="${service.metadata.name}"`);
  });

  it('reads only metrics the server exports, with labels they have; no `or vector(0)` (counters start at 0)', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const exported = new Map((await metrics.registry.getMetricsAsJSON()).map((m) => [m.name, m]));
    for (const { alert, expr } of alerts) {
      expect(expr, alert).not.toContain('vector(0)');
      for (const [name] of expr.matchAll(/karmada_interpreter_[a-z_]+/g)) {
        const base = name.replace(/_(bucket|sum|count)$/, '');
        expect(exported.has(base) || exported.has(name), `${alert}: ${name}`).toBe(true);
      }
    }
    // Labels the rules select or group on.
    const labelsOf = (name: string) => (metrics as any)[name].labelNames as string[];
    expect(labelsOf('requests')).toContain('code');
    expect(labelsOf('luaTimeouts')).toEqual(['kind', 'operation']);
    expect(labelsOf('workersStopped')).toEqual(['reason']);
    expect(labelsOf('customizationServingLastGood')).toEqual(['file']);
  });

  it('every alert has a promtool test that expects it to fire', () => {
    const tests = readdirSync(join(ROOT, ALERT_TESTS_DIR)).filter((f) => f.endsWith('.test.yaml'));
    const tested = new Set<string>();
    for (const file of tests) {
      const test = readYaml(join(ROOT, ALERT_TESTS_DIR, file));
      expect(test.rule_files, file).toEqual(['rules.yaml']);
      for (const t of test.tests) for (const a of t.alert_rule_test ?? []) if (a.exp_alerts?.length) tested.add(a.alertname);
    }
    expect([...tested].sort()).toEqual(alerts.map((a) => a.alert).sort());
  });

  // Extra, where kubectl is installed: kustomize builds an overlay with it and service-monitor.
  it.skipIf(!HAVE_KUBECTL)('kubectl kustomize builds an overlay with the component: the PrometheusRule as written', () => {
    const overlay = mkdtempSync(join(tmpdir(), 'kiw-alerts-overlay-'));
    try {
      const components = ['service-monitor', 'alerts'].map((c) => relative(overlay, join(ROOT, 'manifests/components', c)));
      writeFileSync(
        join(overlay, 'kustomization.yaml'),
        stringify({
          apiVersion: 'kustomize.config.k8s.io/v1beta1',
          kind: 'Kustomization',
          resources: [relative(overlay, join(ROOT, 'manifests'))],
          components,
        }),
      );
      const built = kustomize(overlay);
      expect(built.filter((o) => o.kind === 'PrometheusRule')).toEqual([rule]);
    } finally {
      rmSync(overlay, { recursive: true, force: true });
    }
  });
});
