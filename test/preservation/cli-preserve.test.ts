import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/preserve.ts';
import type { KObject } from '../../src/interpreter/types.ts';

let dir: string;

const workflow = `apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {name: w, namespace: ci}
spec: {entrypoint: main, suspend: true}
status:
  phase: Running
  startedAt: "2026-03-01T10:00:00Z"
  progress: 2/4
  nodes:
    w: {id: w, type: DAG, phase: Running}
  outputs: {parameters: [{name: checkpoint, value: ck-0042}]}
`;

const policy = `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: wf, namespace: ci}
spec:
  resourceSelectors: [{apiVersion: argoproj.io/v1alpha1, kind: Workflow, name: w}]
  failover:
    application:
      purgeMode: Directly
      statePreservation:
        rules:
          - {aliasLabelName: resume-from, jsonPath: '{.outputs.parameters[?(@.name=="checkpoint")].value}'}
          - {aliasLabelName: failover.example.io/progress, jsonPath: '{.progress}'}
`;

const failingRules = `- {aliasLabelName: failover.example.io/phase, jsonPath: '{.phase}'}
- {aliasLabelName: resume-from, jsonPath: '{.outputs.parameters[0].value}'}
`;

// InterpretStatus as the Workflow module trims it (kinds.md W6): no nodes, no phase in this variant.
async function reflectWithoutPhase(obj: KObject): Promise<Record<string, any>> {
  const { progress, outputs } = obj.status;
  return { progress, outputs };
}

async function capture(args: string[], reflect = reflectWithoutPhase) {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    const code = await run(args, { reflect });
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'preserve-cli-'));
  await writeFile(join(dir, 'workflow.yaml'), workflow);
  await writeFile(join(dir, 'policy.yaml'), policy);
  await writeFile(join(dir, 'failing.yaml'), failingRules);
  await writeFile(
    join(dir, 'workflow.json'),
    JSON.stringify({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', metadata: { name: 'w' }, status: { progress: '1/2', outputs: {} } }),
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('preserve CLI', () => {
  it('prints labels and warnings as text and exits 0 without errors', async () => {
    const { code, stdout } = await capture(['--policy', join(dir, 'policy.yaml'), '--observed-file', join(dir, 'workflow.yaml')]);
    expect(code).toBe(0);
    expect(stdout).toContain('Labels (2 of 2 rules):\n  resume-from=ck-0042\n  failover.example.io/progress=2/4\n');
    expect(stdout).toContain('Warnings:\n  failover.example.io/progress: value "2/4" is not a valid label value');
    expect(stdout).not.toContain('Errors:');
  });

  it('prints exactly {labels, errors, warnings} with -o json and exits 1 on any error', async () => {
    const { code, stdout } = await capture(['--policy', join(dir, 'failing.yaml'), '--observed-file', join(dir, 'workflow.yaml'), '-o', 'json']);
    expect(code).toBe(1);
    const parsed = JSON.parse(stdout);
    expect(Object.keys(parsed)).toEqual(['labels', 'errors', 'warnings']);
    expect(parsed).toEqual({
      labels: { 'resume-from': 'ck-0042' },
      errors: [{ aliasLabelName: 'failover.example.io/phase', message: 'failed to execute jsonpath "{.phase}": phase is not found' }],
      warnings: [],
    });
  });

  it('reads JSON files and explains the consequence of errors in text mode', async () => {
    const { code, stdout } = await capture(['--policy', join(dir, 'failing.yaml'), '--observed-file', join(dir, 'workflow.json')]);
    expect(code).toBe(1);
    expect(stdout).toContain('Labels (0 of 2 rules):\n  (none)\n');
    expect(stdout).toContain('  resume-from: failed to execute jsonpath "{.outputs.parameters[0].value}": parameters is not found\n');
    expect(stdout).toContain('Karmada stops at the first error and builds no eviction task');
  });

  it('accepts --customizations (used by the caller to build reflect) and --cluster', async () => {
    const { code, stdout } = await capture(
      ['--policy', join(dir, 'policy.yaml'), '--observed-file', join(dir, 'workflow.yaml'), '--customizations', dir, '--cluster', 'member1', '-o', 'json'],
      async () => null as never,
    );
    expect(code).toBe(1);
    expect(JSON.parse(stdout).errors[0].message).toBe('the application status has not yet been collected from Cluster(member1)');
  });

  it.each([
    [['--observed-file', 'x.yaml'], '--policy is required'],
    [['--policy', 'p.yaml'], '--observed-file is required'],
    [['--policy', 'p.yaml', '--observed-file', 'x', '-o', 'xml'], '-o/--output xml: expected text, json, yaml'],
    [['--bogus'], "Unknown option '--bogus'"],
  ])('exits 2 on wrong usage %j', async (args, message) => {
    const { code, stderr } = await capture(args);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr).toContain('Usage: karmada-interpreter preserve');
  });

  it('prints help', async () => {
    const { code, stdout } = await capture(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: karmada-interpreter preserve --policy FILE --observed-file FILE');
  });

  it('exits 1 with a clear message for a file that is not a policy', async () => {
    const { code, stderr } = await capture(['--policy', join(dir, 'workflow.yaml'), '--observed-file', join(dir, 'workflow.yaml')]);
    expect(code).toBe(1);
    expect(stderr).toContain('preserve: expected a PropagationPolicy or ClusterPropagationPolicy');
  });

  it('exits 1 naming the object when InterpretStatus fails', async () => {
    const { code, stderr } = await capture(['--policy', join(dir, 'policy.yaml'), '--observed-file', join(dir, 'workflow.yaml')], async () => {
      throw new Error('lua: attempt to index a nil value');
    });
    expect(code).toBe(1);
    expect(stderr).toBe('preserve: InterpretStatus failed for Workflow ci/w: lua: attempt to index a nil value\n');
  });
});
