import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PreservationInputError, rulesFromPolicy } from '../../src/preservation/policy.ts';

const propagationPolicy = parse(`
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
  namespace: default
spec:
  resourceSelectors:
    - apiVersion: apps.kruise.io/v1alpha1
      kind: CloneSet
      name: web
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
  failover:
    application:
      decisionConditions:
        tolerationSeconds: 120
      purgeMode: Directly
      statePreservation:
        rules:
          - aliasLabelName: failover.example.io/update-revision
            jsonPath: "{.updateRevision}"
          - aliasLabelName: failover.example.io/updated
            jsonPath: "{.updatedReplicas}"
    cluster:
      purgeMode: Directly
      statePreservation:
        rules:
          - aliasLabelName: failover.example.io/update-revision
            jsonPath: "{.updateRevision}"
          - aliasLabelName: failover.example.io/ready
            jsonPath: "{.readyReplicas}"
`);

function errorOf(doc: unknown): string {
  try {
    rulesFromPolicy(doc);
  } catch (error) {
    expect(error).toBeInstanceOf(PreservationInputError);
    return (error as Error).message;
  }
  return 'no error';
}

describe('rulesFromPolicy', () => {
  it('takes application rules, then cluster rules, dropping exact duplicates', () => {
    expect(rulesFromPolicy(propagationPolicy)).toEqual([
      { aliasLabelName: 'failover.example.io/update-revision', jsonPath: '{.updateRevision}' },
      { aliasLabelName: 'failover.example.io/updated', jsonPath: '{.updatedReplicas}' },
      { aliasLabelName: 'failover.example.io/ready', jsonPath: '{.readyReplicas}' },
    ]);
  });

  it('accepts a ClusterPropagationPolicy with only cluster failover rules', () => {
    const policy = {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'ClusterPropagationPolicy',
      metadata: { name: 'all' },
      spec: { failover: { cluster: { statePreservation: { rules: [{ aliasLabelName: 'x', jsonPath: '{.x}' }] } } } },
    };
    expect(rulesFromPolicy(policy)).toEqual([{ aliasLabelName: 'x', jsonPath: '{.x}' }]);
  });

  it('accepts a bare list and {rules: [...]}', () => {
    const rules = [{ aliasLabelName: 'resume-from', jsonPath: '{.outputs.parameters[?(@.name=="checkpoint")].value}' }];
    expect(rulesFromPolicy(rules)).toEqual(rules);
    expect(rulesFromPolicy({ rules })).toEqual(rules);
  });

  it('accepts a List of policies (kubectl get -o yaml)', () => {
    expect(rulesFromPolicy({ apiVersion: 'v1', kind: 'List', items: [propagationPolicy] })).toHaveLength(3);
  });

  it.each([
    [
      'a Deployment',
      { apiVersion: 'apps/v1', kind: 'Deployment' },
      'expected a PropagationPolicy or ClusterPropagationPolicy (policy.karmada.io/v1alpha1), a list of rules, or {"rules": [...]}; got kind Deployment',
    ],
    [
      'a string',
      'rules',
      'expected a PropagationPolicy or ClusterPropagationPolicy (policy.karmada.io/v1alpha1), a list of rules, or {"rules": [...]}; got string',
    ],
    [
      'an empty object',
      {},
      'expected a PropagationPolicy or ClusterPropagationPolicy (policy.karmada.io/v1alpha1), a list of rules, or {"rules": [...]}; got an object without kind or rules',
    ],
    [
      'a policy without failover rules',
      {
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'PropagationPolicy',
        metadata: { name: 'p' },
        spec: { failover: { application: { purgeMode: 'Directly' } } },
      },
      'PropagationPolicy p has no state preservation rules (spec.failover.application.statePreservation.rules or spec.failover.cluster.statePreservation.rules)',
    ],
    [
      'a policy of another API version',
      { apiVersion: 'policy.karmada.io/v1beta1', kind: 'PropagationPolicy', metadata: { name: 'p' } },
      'PropagationPolicy p: apiVersion must be policy.karmada.io/v1alpha1, got policy.karmada.io/v1beta1',
    ],
    [
      'a rule without jsonPath',
      {
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'PropagationPolicy',
        metadata: { name: 'p' },
        spec: { failover: { application: { statePreservation: { rules: [{ aliasLabelName: 'a' }] } } } },
      },
      'PropagationPolicy p: spec.failover.application.statePreservation.rules[0].jsonPath: required, must be a string',
    ],
    ['rules that are not a list', { rules: 'x' }, 'rules: expected a list of rules'],
    ['a rule that is not an object', [42], 'rules[0]: expected an object with aliasLabelName and jsonPath'],
    ['a List without policies', { kind: 'List', items: [{ kind: 'ConfigMap' }] }, 'List holds no PropagationPolicy or ClusterPropagationPolicy'],
  ])('rejects %s', (_name, doc, message) => {
    expect(errorOf(doc)).toBe(message);
  });
});

// As `kubectl apply` with strict field validation refuses a field the CRD does not declare
// (karmada-io/karmada charts/karmada/_crds/bases/policy/policy.karmada.io_propagationpolicies.yaml),
// a misspelled field in the parts `preserve` reads is an error naming it, not a rule silently lost.
describe('rulesFromPolicy: unknown fields', () => {
  const withFailover = (failover: unknown, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: 'p', labels: { anything: 'goes' } },
    spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'Pod' }], ...spec, failover },
  });
  const rules = [{ aliasLabelName: 'a', jsonPath: '{.a}' }];

  it.each([
    [
      'a misspelled statePreservation beside a good one',
      withFailover({ cluster: { statePreservation: { rules } }, application: { statePreservaton: { rules } } }),
      'PropagationPolicy p: unknown field "spec.failover.application.statePreservaton" (did you mean statePreservation?)',
    ],
    [
      'a misspelled rule field',
      withFailover({ application: { statePreservation: { rules: [{ aliasLabelName: 'a', jsonPath: '{.a}', jsonpath: '{.b}' }] } } }),
      'PropagationPolicy p: unknown field "spec.failover.application.statePreservation.rules[0].jsonpath" (did you mean jsonPath?)',
    ],
    [
      'a misspelled spec field',
      withFailover({ application: { statePreservation: { rules } } }, { placment: {} }),
      'PropagationPolicy p: unknown field "spec.placment" (did you mean placement?)',
    ],
    ['an extra key beside rules', { rules, rule: [] }, 'unknown field "rule" (did you mean rules?)'],
    ['an unknown key in a bare rule', [{ aliasLabelName: 'a', jsonPath: '{.a}', alias: 'x' }], 'rules[0]: unknown field "alias"'],
  ])('rejects %s', (_name, doc, message) => {
    expect(errorOf(doc)).toBe(message);
  });

  it('accepts every field the CRD declares in the parts it reads, whatever the rest of spec holds', () => {
    const doc = withFailover(
      {
        application: { decisionConditions: { tolerationSeconds: 30 }, gracePeriodSeconds: 60, purgeMode: 'Gracefully', statePreservation: { rules } },
        cluster: { purgeMode: 'Directly' },
      },
      {
        placement: { clusterAffinity: { anything: { deeper: 1 } } },
        propagateDeps: true,
        priority: 1,
        schedulerName: 'x',
        suspension: {},
        conflictResolution: 'Abort',
        preemption: 'Never',
        activationPreference: 'Lazy',
        dependentOverrides: [],
        preserveResourcesOnDeletion: true,
        schedulePriority: {},
        association: false,
      },
    );
    expect(rulesFromPolicy(doc)).toEqual(rules);
  });
});
