// CLI consistency (issue 32, item 9): every usage error on stderr with exit 2, -o json|yaml where a
// command prints results, and the hint when `test` finds no customization for the cases' kinds.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cli } from './run-cli.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs();
afterAll(temp.remove);

const REQUEST = 'examples/requests/cloneset-interpretreplica.json';
const MISSING = '/nonexistent-kiw-path';

let dir: string;
let policy: string;
let observed: string;
let deploymentCases: string;
beforeAll(() => {
  dir = temp.make('kiw-cli-consistency-');
  policy = join(dir, 'policy.yaml');
  writeFileSync(policy, `- {aliasLabelName: phase, jsonPath: '{.phase}'}\n`);
  observed = join(dir, 'workflow.yaml');
  writeFileSync(
    observed,
    `apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {name: w, namespace: ci}
spec: {entrypoint: main}
status: {phase: Running, progress: 2/4, startedAt: "2026-03-01T10:00:00Z"}
`,
  );
  deploymentCases = join(dir, 'deployment');
  mkdirSync(join(deploymentCases, 'testdata'), { recursive: true });
  writeFileSync(
    join(deploymentCases, 'testdata', 'interprethealth-test.yaml'),
    `name: ready deployment
observedObj:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  status: {readyReplicas: 1}
operation: InterpretHealth
output:
  healthy: true
`,
  );
});

describe('usage errors: stderr, exit 2, for every command', () => {
  const cases: Array<[string, () => string[]]> = [
    ['serve: unknown option', () => ['serve', '--bogus']],
    ['interpret: unknown option', () => ['interpret', '--bogus']],
    ['interpret: missing argument', () => ['interpret']],
    ['interpret: nonexistent FILE', () => ['interpret', MISSING]],
    ['interpret: nonexistent --desired-file', () => ['interpret', '--operation', 'InterpretReplica', '--desired-file', MISSING]],
    ['interpret: invalid -o', () => ['interpret', REQUEST, '-o', 'xml']],
    ['test: unknown option', () => ['test', '--bogus']],
    ['test: nonexistent PATH', () => ['test', MISSING]],
    ['check: unknown option', () => ['check', '--bogus']],
    ['check: missing PATH', () => ['check']],
    ['check: nonexistent PATH', () => ['check', MISSING]],
    ['conformance: unknown option', () => ['conformance', '--bogus']],
    ['conformance: nonexistent PATH', () => ['conformance', MISSING]],
    ['webhook-config: unknown option', () => ['webhook-config', '--bogus']],
    ['webhook-config: missing --url/--service', () => ['webhook-config']],
    ['webhook-config: nonexistent --ca-file', () => ['webhook-config', '--url', 'https://example.com', '--ca-file', MISSING]],
    ['webhook-config: invalid -o', () => ['webhook-config', '--url', 'https://example.com', '-o', 'xml']],
    ['register: unknown option', () => ['register', '--bogus']],
    ['replay: unknown option', () => ['replay', '--bogus']],
    ['replay: nonexistent PATH', () => ['replay', MISSING]],
    ['preserve: unknown option', () => ['preserve', '--bogus']],
    ['preserve: missing --policy', () => ['preserve', '--observed-file', observed]],
    ['preserve: nonexistent --policy', () => ['preserve', '--policy', MISSING, '--observed-file', observed]],
    ['version: unexpected argument', () => ['version', '--bogus']],
  ];
  it.each(cases)('%s', async (_, args) => {
    const argv = args();
    const { code, stdout, stderr } = await cli(argv);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.startsWith(`${argv[0]}: `)).toBe(true);
    // conformance says how to get Karmada's cases instead.
    if (argv.includes(MISSING)) expect(stderr).toContain(argv[0] === 'conformance' ? `${MISSING} does not exist` : `${MISSING}: no such file or directory`);
  });
});

describe('-o json|yaml', () => {
  it('interpret -o json prints the results as one object; -o yaml the same', async () => {
    const json = await cli(['interpret', REQUEST, '-o', 'json']);
    expect(json.code).toBe(0);
    const result = JSON.parse(json.stdout);
    expect(result).toMatchObject({
      operation: 'InterpretReplica',
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      answeredBy: { layer: 'builtin-ts', implementation: 'typescript:CloneSet' },
    });
    expect(typeof result.results.replica).toBe('number');
    const yaml = await cli(['interpret', REQUEST, '--output', 'yaml']);
    expect(parse(yaml.stdout)).toEqual(result);
    // The default output is unchanged: YAML documents after a comment.
    expect((await cli(['interpret', REQUEST])).stdout).toMatch(/^# answered by the TypeScript module typescript:CloneSet\n---\n# \[1\/\d\] replica:/);
  });

  it('interpret -o json of a testdata case says whether it matches', async () => {
    const { code, stdout } = await cli(['interpret', join(deploymentCases, 'testdata', 'interprethealth-test.yaml'), '-o', 'json']);
    // apps/v1 Deployment is not served: the operation fails and nothing is printed on stdout.
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const served = await cli([
      'interpret',
      '--examples',
      'all',
      'interpreters/argoproj.io/v1alpha1/Rollout/testdata/interprethealth-test.yaml',
      '--case',
      'Healthy Rollout',
      '-o',
      'json',
    ]);
    expect(served.code).toBe(0);
    expect(JSON.parse(served.stdout)).toMatchObject({ results: { healthy: true }, case: { name: 'Healthy Rollout', matches: true, problems: [] } });
  });

  it('test -o json counts passes and failures', async () => {
    const { code, stdout } = await cli(['test', 'interpreters/apps.kruise.io', '-o', 'json']);
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({ failed: 0, skipped: 0, failures: [], unservedKinds: [] });
    expect(summary.passed).toBeGreaterThan(0);
    expect(summary.passedCases).toHaveLength(summary.passed);
    expect(summary.passedCases[0]).toEqual({ file: expect.stringContaining('testdata'), name: expect.any(String) });
  });

  it('check -o json gives each object its rules', async () => {
    const { code, stdout } = await cli(['check', 'interpreters/argoproj.io/v1alpha1/Rollout/customizations.yaml', '-o', 'json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.ok).toBe(true);
    expect(report.objects).toEqual([
      expect.objectContaining({
        file: 'interpreters/argoproj.io/v1alpha1/Rollout/customizations.yaml',
        document: 1,
        ok: true,
        target: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout' },
        rules: expect.objectContaining({ InterpretHealth: 'PASS', Retain: 'UNSET' }),
      }),
    ]);
    const broken = join(dir, 'broken.yaml');
    writeFileSync(
      broken,
      `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: broken}
spec:
  target: {apiVersion: apps/v1, kind: Deployment}
  customizations:
    healthInterpretation:
      luaScript: 'function InterpretHealth(obj) return ( end'
`,
    );
    const failed = await cli(['check', broken, '-o', 'yaml']);
    expect(failed.code).toBe(1);
    const object = parse(failed.stdout).objects[0];
    expect(object).toMatchObject({ name: 'broken', ok: false, rules: { InterpretHealth: 'ERROR' } });
    expect(object.errors.InterpretHealth).toContain(broken);
  });

  it('preserve -o yaml is the -o json object', async () => {
    const json = await cli(['preserve', '--policy', policy, '--observed-file', observed, '-o', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ labels: { phase: 'Running' }, errors: [], warnings: [] });
    const yaml = await cli(['preserve', '--policy', policy, '--observed-file', observed, '-o', 'yaml']);
    expect(yaml.code).toBe(0);
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });

  it('webhook-config -o json is the YAML it prints by default', async () => {
    const yaml = await cli(['webhook-config', '--url', 'https://example.com/interpret']);
    const json = await cli(['webhook-config', '--url', 'https://example.com/interpret', '-o', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(parse(yaml.stdout));
    expect(JSON.parse(json.stdout).kind).toBe('ResourceInterpreterWebhookConfiguration');
  });

  it('replay -o yaml is the -o json report', async () => {
    const file = 'test/fixtures/argoproj.io/Workflow/InterpretReplica-gpu-steps-boundary.json';
    const json = await cli(['replay', file, '-o', 'json']);
    const yaml = await cli(['replay', file, '-o', 'yaml']);
    expect(yaml.code).toBe(json.code);
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });

  it('every command that takes -o documents it in its help', async () => {
    for (const command of ['interpret', 'test', 'check', 'preserve', 'webhook-config', 'replay']) {
      expect((await cli([command, '--help'])).stdout).toMatch(/-o, --output/);
    }
  });
});

describe('test: cases of a kind nothing interprets', () => {
  it('suggests --customizations, naming the kind', async () => {
    const { code, stderr } = await cli(['test', deploymentCases]);
    expect(code).toBe(1);
    expect(stderr).toContain('no customization interprets apps/v1 Deployment (1 case)');
    expect(stderr).toContain('--customizations');
  });

  it('says nothing of the kind when the customization is given', async () => {
    const customization = join(dir, 'deployment-health.yaml');
    writeFileSync(
      customization,
      `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: deployment-health}
spec:
  target: {apiVersion: apps/v1, kind: Deployment}
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          return observedObj.status.readyReplicas == 1
        end
`,
    );
    const { code, stderr } = await cli(['test', deploymentCases, '--customizations', customization]);
    expect(code).toBe(0);
    expect(stderr).not.toContain('no customization interprets');
  });
});
