// Checks the alerting rules of manifests/components/alerts with promtool: the PrometheusRule's `spec`
// is the rules file (one copy: it is extracted here), `promtool check rules` lints it and
// `promtool test rules` runs test/alerts/*.test.yaml against it (their `rule_files: [rules.yaml]`).
// Run with `npm run test:alerts`; needs promtool on PATH (Debian: apt-get install prometheus). The unit
// suite does not: test/deploy/alerts.test.ts checks the component's shape without it.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse, stringify } from 'yaml';

const ROOT = resolve(import.meta.dirname, '..');
export const PROMETHEUS_RULE_FILE = 'manifests/components/alerts/prometheusrule.yaml';
export const ALERT_TESTS_DIR = 'test/alerts';

/** The Prometheus rules file the PrometheusRule carries (its spec: `groups`). */
export function rulesFile(): { groups: unknown[] } {
  return parse(readFileSync(join(ROOT, PROMETHEUS_RULE_FILE), 'utf8')).spec;
}

function promtool(args: string[]): boolean {
  const run = spawnSync('promtool', args, { stdio: 'inherit' });
  if (run.error) throw new Error(`promtool: ${run.error.message} (Debian: apt-get install prometheus)`);
  return run.status === 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = mkdtempSync(join(tmpdir(), 'kiw-alerts-'));
  try {
    writeFileSync(join(dir, 'rules.yaml'), stringify(rulesFile()));
    const tests = readdirSync(join(ROOT, ALERT_TESTS_DIR)).filter((f) => f.endsWith('.test.yaml'));
    if (tests.length === 0) throw new Error(`no tests in ${ALERT_TESTS_DIR}`);
    for (const test of tests) copyFileSync(join(ROOT, ALERT_TESTS_DIR, test), join(dir, test));
    const ok = promtool(['check', 'rules', join(dir, 'rules.yaml')]) && promtool(['test', 'rules', ...tests.map((t) => join(dir, t))]);
    if (!ok) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
