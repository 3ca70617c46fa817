// Workflow InterpretDependency edge cases: de-duplication, order, exclusions, and what is not parsed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getDependencies } from '../../interpreters/argoproj.io/v1alpha1/Workflow/dependencies.ts';
import type { DependentObjectReference } from '../../src/interpreter/types.ts';

function workflow(spec: Record<string, unknown>, namespace = 'ci'): Record<string, any> {
  return { apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', metadata: { name: 'w', namespace }, spec };
}
const key = (ref: DependentObjectReference) => [ref.apiVersion, ref.kind, ref.namespace ?? '', ref.name ?? ''];
const names = (refs: DependentObjectReference[], kind: string) => refs.filter((ref) => ref.kind === kind).map((ref) => ref.name);

describe('Workflow getDependencies', () => {
  it('lists each object once, sorted by apiVersion, kind, namespace, name', () => {
    const secretNames = fc.constantFrom('a', 'b', 'c', 'd');
    fc.assert(
      fc.property(fc.array(secretNames, { maxLength: 8 }), fc.array(secretNames, { maxLength: 8 }), (envSecrets, artifactSecrets) => {
        const refs = getDependencies(workflow({
          templates: [{
            name: 't',
            container: { image: 'x', env: envSecrets.map((name, i) => ({ name: `E${i}`, valueFrom: { secretKeyRef: { name, key: 'k' } } })) },
            outputs: { artifacts: artifactSecrets.map((name, i) => ({ name: `o${i}`, s3: { key: 'k', accessKeySecret: { name, key: 'ak' } } })) },
          }],
        }));
        const keys = refs.map((ref) => JSON.stringify(key(ref)));
        expect(new Set(keys).size).toBe(keys.length);
        const sorted = [...refs].sort((a, b) => (JSON.stringify(key(a)) < JSON.stringify(key(b)) ? -1 : 1));
        expect(refs).toEqual(sorted);
        expect(names(refs, 'Secret')).toEqual([...new Set([...envSecrets, ...artifactSecrets])].sort());
      }),
    );
  });

  it('excludes only PVCs named like a volumeClaimTemplate, not other kinds with that name', () => {
    const refs = getDependencies(workflow({
      volumeClaimTemplates: [{ metadata: { name: 'work' } }],
      volumes: [{ name: 'work', persistentVolumeClaim: { claimName: 'work' } }, { name: 'cfg', configMap: { name: 'work' } }],
    }));
    expect(refs).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ci', name: 'work' }]);
  });

  it('follows the deprecated single semaphore and ignores mutexes', () => {
    const refs = getDependencies(workflow({
      synchronization: { semaphore: { configMapKeyRef: { name: 'legacy-limits', key: 'k' } }, mutexes: [{ name: 'lock' }] },
      templates: [{ name: 't', synchronization: { mutex: { name: 'other' } }, container: { image: 'x' } }],
    }));
    expect(refs).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ci', name: 'legacy-limits' }]);
  });

  it('keeps a parameter ConfigMap in the workflow namespace even when the parameter object has a namespace-like field', () => {
    const refs = getDependencies(workflow({
      arguments: { parameters: [{ name: 'namespace', value: 'other', valueFrom: { configMapKeyRef: { name: 'params', key: 'k' } } }] },
    }));
    expect(refs).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ci', name: 'params' }]);
  });

  it('does not parse strings: podSpecPatch and resource manifests are opaque', () => {
    const refs = getDependencies(workflow({
      podSpecPatch: '{"containers":[{"name":"main","env":[{"name":"T","valueFrom":{"secretKeyRef":{"name":"hidden","key":"k"}}}]}]}',
      templates: [{ name: 'apply', resource: { action: 'create', manifest: 'apiVersion: v1\nkind: Pod\nspec:\n  serviceAccountName: hidden-sa\n' } }],
    }));
    expect(refs).toEqual([]);
  });

  it('ignores references without a name and the default service account', () => {
    const refs = getDependencies(workflow({
      serviceAccountName: 'default',
      workflowTemplateRef: { clusterScope: true },
      templates: [{
        name: 't',
        serviceAccountName: '',
        steps: [[{ name: 's', templateRef: { name: '', template: 'x' } }]],
        inputs: { artifacts: [{ name: 'a', git: { repo: 'r', usernameSecret: { key: 'u' } } }] },
      }],
    }));
    expect(refs).toEqual([]);
  });

  it('treats clusterScope false as a namespaced WorkflowTemplate and true as cluster-scoped', () => {
    const refs = getDependencies(workflow({
      templates: [{ name: 'main', dag: { tasks: [
        { name: 'a', templateRef: { name: 'shared', template: 'x', clusterScope: false } },
        { name: 'b', templateRef: { name: 'shared', template: 'y', clusterScope: true } },
      ] } }],
    }, 'team-a'));
    expect(refs).toEqual([
      { apiVersion: 'argoproj.io/v1alpha1', kind: 'ClusterWorkflowTemplate', name: 'shared' },
      { apiVersion: 'argoproj.io/v1alpha1', kind: 'WorkflowTemplate', namespace: 'team-a', name: 'shared' },
    ]);
  });

  it('walks templateDefaults like a template: its volumes, container env and service account', () => {
    const refs = getDependencies(workflow({
      templateDefaults: {
        serviceAccountName: 'defaults-sa',
        volumes: [{ name: 'certs', secret: { secretName: 'ca-bundle' } }],
        container: { env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'modes', key: 'm' } } }] },
      },
      templates: [{ name: 'c', container: { image: 'x' } }],
    }));
    expect(refs).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ci', name: 'modes' },
      { apiVersion: 'v1', kind: 'Secret', namespace: 'ci', name: 'ca-bundle' },
      { apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'ci', name: 'defaults-sa' },
    ]);
  });

  it('does not look at status (stored templates may name objects of another cluster)', () => {
    const object = workflow({ entrypoint: 'main' });
    object.status = { storedTemplates: { x: { serviceAccountName: 'from-status', container: { env: [{ valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] } } } };
    expect(getDependencies(object)).toEqual([]);
  });
});
