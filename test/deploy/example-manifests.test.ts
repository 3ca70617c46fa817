// manifests/examples/{cloneset,workflow}: the policies are read by `preserve` as strictly as kubectl
// would read them and carry exactly the kinds' recommended state-preservation rules; the resource
// templates are answered as their README says (CloneSet 5 replicas with its ConfigMap as a dependency;
// a Workflow 1 replica).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { cloneSet } from '../../interpreters/apps.kruise.io/v1alpha1/CloneSet/index.ts';
import { workflowInterpreter } from '../../interpreters/argoproj.io/v1alpha1/Workflow/index.ts';
import { interpret } from '../../src/interpreter/dispatch.ts';
import { createRegistry } from '../../src/interpreter/setup.ts';
import type { KObject } from '../../src/interpreter/types.ts';
import { rulesFromPolicy } from '../../src/preservation/policy.ts';

const loaded = await createRegistry();
afterAll(() => loaded.close());

function documents(file: string): KObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => doc.toJS() as KObject);
}

describe.each([
  ['cloneset', cloneSet.preservation, 'CloneSet', 5, [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'web-config' }]],
  [
    'workflow',
    workflowInterpreter.preservation,
    'Workflow',
    1,
    [
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ci', name: 'build-settings' },
      { apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'ci', name: 'builder' },
    ],
  ],
])('manifests/examples/%s', (folder, recommended, kind, replicas, dependencies) => {
  it('has a policy whose rules are the recommended ones', () => {
    const [policy] = documents(`manifests/examples/${folder}/propagationpolicy.yaml`);
    expect(rulesFromPolicy(policy)).toEqual(recommended);
  });

  it(`has a ${kind} answered as its README says`, async () => {
    const object = documents(`manifests/examples/${folder}/${folder}.yaml`).find((doc) => doc.kind === kind)!;
    const input = { apiVersion: object.apiVersion as string, kind, object };
    expect(await interpret(loaded.registry, { ...input, operation: 'InterpretReplica' })).toMatchObject({ ok: true, result: { replicas } });
    expect(await interpret(loaded.registry, { ...input, operation: 'InterpretDependency' })).toMatchObject({ ok: true, result: { dependencies } });
  });
});
