import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { caseInput, compareResults, loadTestCases } from '../../src/testcases/cases.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs();
afterAll(temp.remove);

const good = (name: string) => `name: ${name}
observedObj:
  apiVersion: apps.example.io/v1
  kind: Widget
  metadata: {name: w, namespace: default}
operation: InterpretHealth
output:
  healthy: true
`;

// A mis-indented key after a quoted scalar: YAML parsers reject the document.
const malformed = `name: broken
observedObj:
  apiVersion: apps.example.io/v1
  kind: Widget
  spec:
    tolerations:
      - key: "gpu"
          operator: "Exists"
        effect: "NoSchedule"
operation: InterpretHealth
output:
  healthy: true
`;

describe('loadTestCases', () => {
  it('fails only the malformed document and keeps the others of the file', async () => {
    const dir = temp.make('kiw-testcases-');
    const file = join(dir, 'interprethealth-test.yaml');
    await writeFile(file, [good('first'), malformed, good('third')].join('---\n'));
    const cases = await loadTestCases(file);
    expect(cases.map((tc) => tc.name)).toEqual(['first', 'document 2', 'third']);
    expect(typeof caseInput(cases[0]!)).toBe('object');
    expect(caseInput(cases[1]!)).toMatch(/^document 2: /);
    expect(typeof caseInput(cases[2]!)).toBe('object');
  });

  it('hands statusItems on as Karmada decodes them into []AggregatedStatusItem', async () => {
    const dir = temp.make('kiw-testcases-');
    const file = join(dir, 'aggregatestatus-test.yaml');
    await writeFile(
      file,
      `name: items
desiredObj: {apiVersion: apps.example.io/v1, kind: Widget, metadata: {name: w}}
statusItems:
  - apiVersion: apps.example.io/v1
    kind: Widget
    metadata: {clusterName: member1}
    status: {ready: 2}
  - ClusterName: member2
    applied: false
    health: Healthy
    appliedMessage: ""
  - clusterName: member3
    applied: true
    status: null
operation: AggregateStatus
output: {}
`,
    );
    const [tc] = await loadTestCases(file);
    const input = caseInput(tc!);
    expect(typeof input).toBe('object');
    expect((input as { aggregatedStatus?: unknown }).aggregatedStatus).toEqual([
      { clusterName: '', status: { ready: 2 } },
      { clusterName: 'member2', health: 'Healthy' },
      { clusterName: 'member3', applied: true },
    ]);
  });
});

describe('compareResults', () => {
  it("compares resource quantities by value, as Karmada's harness does (Quantity.Equal)", () => {
    // Karmada's FlinkDeployment scripts return memory as kube.getResourceQuantity("2048m") = 2.048.
    const requires = { resourceRequest: { cpu: '500m', memory: '2048m' } };
    expect(compareResults({ requires }, { requires: { resourceRequest: { cpu: 0.5, memory: '2.048' } } })).toEqual([]);
    expect(compareResults({ requires }, { requires: { resourceRequest: { cpu: '501m', memory: '2.048' } } })).toHaveLength(1);
    const components = [{ name: 'jobmanager', replicas: 1, replicaRequirements: requires }];
    expect(
      compareResults(
        { components },
        { components: [{ name: 'jobmanager', replicas: 1, replicaRequirements: { resourceRequest: { cpu: '0.5', memory: 2.048 } } }] },
      ),
    ).toEqual([]);
    expect(
      compareResults(
        { components },
        { components: [{ name: 'jobmanager', replicas: 1, replicaRequirements: { resourceRequest: { cpu: '0.5', memory: '2Gi' } } }] },
      ),
    ).toHaveLength(1);
  });
});
