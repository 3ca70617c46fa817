// Workflow InterpretStatus and state preservation: the reflected status stays small, and the
// recommended preservation rules always evaluate to valid label values.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { brotliCompressSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { MAX_DECOMPRESSED_NODES_BYTES } from '../../interpreters/argoproj.io/v1alpha1/Workflow/nodes.ts';
import { preservation } from '../../interpreters/argoproj.io/v1alpha1/Workflow/preservation.ts';
import { reflectStatus } from '../../interpreters/argoproj.io/v1alpha1/Workflow/status.ts';
import { executeJsonPath } from '../../src/jsonpath/index.ts';
import { isQualifiedName } from '../../src/k8s/resource-names.ts';

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const REFLECTED_KEYS = [
  'phase',
  'startedAt',
  'finishedAt',
  'estimatedDuration',
  'progress',
  'message',
  'conditions',
  'outputs',
  'resourcesDuration',
  'nodeSummary',
  'suspended',
  'shutdown',
];

const PHASES = ['', 'Pending', 'Running', 'Succeeded', 'Failed', 'Error'];
const workflowArbitrary = fc.record(
  {
    spec: fc.record(
      { suspend: fc.option(fc.boolean(), { nil: undefined }), shutdown: fc.option(fc.constantFrom('', 'Stop', 'Terminate'), { nil: undefined }) },
      { requiredKeys: [] },
    ),
    status: fc.record(
      {
        phase: fc.constantFrom(...PHASES),
        progress: fc.constantFrom('0/1', '2/4'),
        nodes: fc.dictionary(
          fc.string({ minLength: 1, maxLength: 8 }),
          fc.record(
            {
              phase: fc.constantFrom('Pending', 'Running', 'Succeeded', 'Failed', 'Error', 'Skipped', 'Omitted', 'Weird'),
              type: fc.constantFrom('Pod', 'Steps', 'DAG', 'Suspend', 'Retry'),
            },
            { requiredKeys: ['phase'] },
          ),
        ),
        storedTemplates: fc.dictionary(fc.string(), fc.object()),
        storedWorkflowTemplateSpec: fc.object(),
        compressedNodes: fc.string(),
        persistentVolumeClaims: fc.array(fc.object()),
        taskResultsCompletionStatus: fc.dictionary(fc.string(), fc.boolean()),
        outputs: fc.record(
          { parameters: fc.array(fc.record({ name: fc.string(), value: fc.string() })), artifacts: fc.array(fc.object()) },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

describe('Workflow reflectStatus', () => {
  it('never reflects nodes, stored templates or other bulky fields, and always has phase and suspended', () => {
    fc.assert(
      fc.property(workflowArbitrary, (workflow) => {
        const reflected = reflectStatus(structuredClone(workflow));
        for (const key of Object.keys(reflected)) expect(REFLECTED_KEYS).toContain(key);
        expect(typeof reflected.phase).toBe('string');
        expect(typeof reflected.suspended).toBe('boolean');
        if (reflected.outputs) expect(Object.keys(reflected.outputs)).toEqual(['parameters']);
      }),
    );
  });

  it('counts nodes per known phase, and their total matches the nodes with a known phase', () => {
    fc.assert(
      fc.property(workflowArbitrary, (workflow) => {
        const reflected = reflectStatus(structuredClone(workflow));
        const nodes = workflow.status?.nodes;
        if (!nodes) {
          expect(reflected.nodeSummary).toBeUndefined();
          return;
        }
        const known = Object.values(nodes).filter((node) => node.phase !== 'Weird').length;
        const counted = Object.values(reflected.nodeSummary as Record<string, number>).reduce((sum, count) => sum + count, 0);
        expect(counted).toBe(known);
        expect(reflected.nodeSummary).not.toHaveProperty('Weird');
      }),
    );
  });

  it("reflects suspended exactly as Argo's IsWorkflowSuspended: spec.suspend, or an active Suspend node", () => {
    // argo-workflows workflow/util/util.go IsWorkflowSuspended; NodeStatus.IsActiveSuspendNode is
    // type Suspend and phase Running (workflow_types.go).
    fc.assert(
      fc.property(workflowArbitrary, (workflow) => {
        const nodes: Record<string, any> = workflow.status?.nodes ?? {};
        const expected = workflow.spec?.suspend === true || Object.values(nodes).some((node) => node.type === 'Suspend' && node.phase === 'Running');
        expect(reflectStatus(structuredClone(workflow)).suspended).toBe(expected);
      }),
    );
  });

  it('reads compressed nodes in every format Argo writes (gzip, zstd, brotli), as its packer does', () => {
    const nodes = {
      'w-1': { type: 'Steps', phase: 'Running' },
      'w-2': { type: 'Suspend', phase: 'Running', displayName: 'approve' },
      'w-3': { type: 'Pod', phase: 'Succeeded' },
    };
    for (const compress of [gzipSync, zstdCompressSync, brotliCompressSync]) {
      const compressedNodes = compress(Buffer.from(JSON.stringify(nodes))).toString('base64');
      expect(reflectStatus({ status: { phase: 'Running', compressedNodes } })).toMatchObject({ suspended: true, nodeSummary: { Running: 2, Succeeded: 1 } });
    }
  });

  it('treats compressed nodes that expand past the cap, or do not decode, as unknown', () => {
    const huge = { gate: { type: 'Suspend', phase: 'Running', pad: 'x'.repeat(MAX_DECOMPRESSED_NODES_BYTES) } };
    const compressedNodes = gzipSync(Buffer.from(JSON.stringify(huge))).toString('base64');
    expect(compressedNodes.length).toBeLessThan(100_000);
    expect(reflectStatus({ status: { phase: 'Running', compressedNodes } })).toEqual({ phase: 'Running', suspended: false });
    expect(reflectStatus({ spec: { suspend: true }, status: { phase: 'Running', compressedNodes: 'not base64 gzip' } })).toEqual({
      phase: 'Running',
      suspended: true,
    });
  });

  it('reflects an empty node map as an empty summary', () => {
    expect(reflectStatus({ status: { phase: 'Running', nodes: {} } }).nodeSummary).toEqual({});
  });

  it('drops a null optional field instead of reflecting null', () => {
    expect(reflectStatus({ status: { phase: 'Running', message: null, finishedAt: null } })).toEqual({ phase: 'Running', suspended: false });
  });
});

describe('Workflow recommended state preservation', () => {
  it('uses qualified alias label names', () => {
    expect(preservation.length).toBeGreaterThan(0);
    for (const rule of preservation) expect(isQualifiedName(rule.aliasLabelName), rule.aliasLabelName).toBe(true);
  });

  it('always evaluates (no missing key) to a valid label value, whatever the member status', () => {
    fc.assert(
      fc.property(workflowArbitrary, (workflow) => {
        const reflected = JSON.parse(JSON.stringify(reflectStatus(structuredClone(workflow))));
        for (const rule of preservation) {
          const value = executeJsonPath(rule.jsonPath, reflected);
          expect(value.length).toBeLessThanOrEqual(63);
          expect(value).toMatch(LABEL_VALUE);
        }
      }),
    );
  });

  it('carries the phase and suspension of the evicted run', () => {
    const reflected = reflectStatus({ spec: { suspend: true }, status: { phase: 'Failed' } });
    const labels = Object.fromEntries(preservation.map((rule) => [rule.aliasLabelName, executeJsonPath(rule.jsonPath, reflected)]));
    expect(labels).toEqual({ 'failover.karmada.io/workflow-phase': 'Failed', 'failover.karmada.io/workflow-suspended': 'true' });
  });

  it('records a run waiting at an approval gate (an active Suspend node) as suspended', () => {
    const reflected = reflectStatus({
      spec: {},
      status: { phase: 'Running', nodes: { 'w-1': { type: 'Suspend', phase: 'Running', displayName: 'approve' } } },
    });
    const labels = Object.fromEntries(preservation.map((rule) => [rule.aliasLabelName, executeJsonPath(rule.jsonPath, reflected)]));
    expect(labels).toEqual({ 'failover.karmada.io/workflow-phase': 'Running', 'failover.karmada.io/workflow-suspended': 'true' });
  });
});
