import { describe, expect, it } from 'vitest';
import type { KObject } from '../../src/interpreter/types.ts';
import { PreservationInputError, preserveForObject } from '../../src/preservation/index.ts';

const cloneSet: KObject = {
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name: 'web', namespace: 'default', generation: 4 },
  spec: { replicas: 6, updateStrategy: { partition: 3 } },
  status: {
    observedGeneration: 4,
    replicas: 6,
    readyReplicas: 6,
    updatedReplicas: 3,
    updatedReadyReplicas: 3,
    availableReplicas: 6,
    updateRevision: 'web-6d9f',
    currentRevision: 'web-5c8b',
    labelSelector: 'app=web',
  },
};

// A reflection that trims the status the way an InterpretStatus module does.
async function reflectRevisionsOnly(obj: KObject): Promise<Record<string, any>> {
  const { updateRevision, currentRevision, updatedReplicas } = obj.status;
  return { updateRevision, currentRevision, updatedReplicas };
}

const policy = {
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    resourceSelectors: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' }],
    failover: {
      application: {
        purgeMode: 'Directly',
        statePreservation: {
          rules: [
            { aliasLabelName: 'failover.example.io/update-revision', jsonPath: '{.updateRevision}' },
            { aliasLabelName: 'failover.example.io/ready', jsonPath: '{.readyReplicas}' },
          ],
        },
      },
    },
  },
};

describe('preserveForObject', () => {
  it('evaluates the rules against the reflected status, not the object', async () => {
    const result = await preserveForObject({ policy, observedObject: cloneSet }, reflectRevisionsOnly);
    expect(result.labels).toEqual({ 'failover.example.io/update-revision': 'web-6d9f' });
    // readyReplicas is in the object's status but not in what InterpretStatus reflected.
    expect(result.errors).toEqual([
      { aliasLabelName: 'failover.example.io/ready', message: 'failed to execute jsonpath "{.readyReplicas}": readyReplicas is not found' },
    ]);
  });

  it('accepts rules instead of a policy', async () => {
    const result = await preserveForObject(
      { rules: [{ aliasLabelName: 'failover.example.io/updated', jsonPath: '{.updatedReplicas}' }], observedObject: cloneSet },
      reflectRevisionsOnly,
    );
    expect(result).toEqual({ labels: { 'failover.example.io/updated': '3' }, errors: [], warnings: [] });
  });

  it('passes the observed object to the reflect function', async () => {
    const seen: KObject[] = [];
    await preserveForObject({ rules: [], observedObject: cloneSet }, async (obj) => {
      seen.push(obj);
      return {};
    });
    expect(seen).toEqual([cloneSet]);
  });

  it.each([
    ['neither policy nor rules', { observedObject: cloneSet }, 'give exactly one of "policy" or "rules"'],
    ['both policy and rules', { policy, rules: [], observedObject: cloneSet }, 'give exactly one of "policy" or "rules"'],
    ['no observed object', { rules: [] }, '"observedObject" must be a Kubernetes object'],
    ['an observed object without kind', { rules: [], observedObject: { apiVersion: 'v1' } }, '"observedObject" needs apiVersion and kind'],
    ['malformed rules', { rules: [{ aliasLabelName: 'a' }], observedObject: cloneSet }, 'rules[0].jsonPath: required, must be a string'],
  ])('rejects %s', async (_name, input, message) => {
    const attempt = preserveForObject(input as never, reflectRevisionsOnly);
    await expect(attempt).rejects.toBeInstanceOf(PreservationInputError);
    await expect(attempt).rejects.toThrow(message);
  });

  it('lets a failing InterpretStatus surface', async () => {
    const attempt = preserveForObject({ policy, observedObject: cloneSet }, async () => {
      throw new Error('boom');
    });
    await expect(attempt).rejects.toThrow('boom');
  });
});
