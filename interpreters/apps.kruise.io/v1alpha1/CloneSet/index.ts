// OpenKruise CloneSet (apps.kruise.io/v1alpha1). What each operation does for users, and where it
// deliberately differs from Karmada's built-in customization, is in README.md next to this file.
import { isJsonObject, type KindInterpreter } from '../../../../src/interpreter/types.ts';
import { podTemplateDependencies } from '../../../../src/k8s/pod-dependencies.ts';
import { volumeClaimTemplateNames } from '../../shared/dependencies.ts';
import { specOf, templateReplicas } from '../../shared/fields.ts';
import { kruiseHealthy } from '../../shared/health.ts';
import { cloneSetPartitionReplicas } from '../../shared/partition.ts';
import { retainMemberReplicas, retainSpecFields, rolloutControlled } from '../../shared/retain.ts';
import { reviseKruiseReplicas } from '../../shared/revise.ts';
import { aggregateKruiseStatus, reflectKruiseStatus, type StatusProfile } from '../../shared/status.ts';

const STATUS: StatusProfile = {
  counters: [
    'replicas',
    'readyReplicas',
    'availableReplicas',
    'updatedReplicas',
    'updatedReadyReplicas',
    'updatedAvailableReplicas',
    'expectedUpdatedReplicas',
  ],
  volumeClaims: false,
};

const spec = specOf;

export const cloneSet: KindInterpreter = {
  name: 'typescript:CloneSet',
  targets: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' }],

  getReplicas: templateReplicas,

  reviseReplica(obj, replicas) {
    return reviseKruiseReplicas(obj, replicas, {
      keepBack: [['updateStrategy', 'partition']],
      budgets: [
        ['updateStrategy', 'maxUnavailable'],
        ['updateStrategy', 'maxSurge'],
        ['scaleStrategy', 'maxUnavailable'],
      ],
    });
  },

  retain(desired, observed) {
    retainMemberReplicas(desired, observed);
    // Pod names are cluster-local and the CloneSet controller removes names of pods already gone.
    retainSpecFields(desired, observed, ['scaleStrategy'], ['podsToDelete']);
    if (rolloutControlled(observed)) retainSpecFields(desired, observed, ['updateStrategy'], ['partition', 'paused']);
    return desired;
  },

  aggregateStatus: (obj, items) => aggregateKruiseStatus(obj, items, STATUS),

  reflectStatus: (observed) => reflectKruiseStatus(observed, STATUS),

  interpretHealth(observed) {
    const strategy = isJsonObject(spec(observed).updateStrategy) ? spec(observed).updateStrategy : {};
    return kruiseHealthy(observed, (status, replicas) => {
      if (strategy.paused === true || strategy.type === 'OnDelete') return undefined;
      const expected = status.expectedUpdatedReplicas;
      return Number.isInteger(expected) ? expected : replicas - cloneSetPartitionReplicas(strategy.partition, replicas);
    });
  },

  getDependencies(obj) {
    const template = spec(obj).template;
    if (!isJsonObject(template)) return [];
    const namespace = isJsonObject(obj.metadata) && typeof obj.metadata.namespace === 'string' ? obj.metadata.namespace : '';
    return podTemplateDependencies(template, namespace, { excludeClaimNames: volumeClaimTemplateNames(obj) });
  },

  // Rollout markers: present in every reflected status, integers or a revision name. The revision
  // name is "<CloneSet name>-<hash>", a valid label value while the name has at most 52 characters.
  preservation: [
    { aliasLabelName: 'failover.karmada.io/update-revision', jsonPath: '{.updateRevision}' },
    { aliasLabelName: 'failover.karmada.io/updated-replicas', jsonPath: '{.updatedReplicas}' },
    { aliasLabelName: 'failover.karmada.io/expected-updated-replicas', jsonPath: '{.expectedUpdatedReplicas}' },
  ],
};
