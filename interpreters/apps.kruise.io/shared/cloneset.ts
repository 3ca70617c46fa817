// OpenKruise CloneSet, one implementation for every served API version. The versions differ only in
// where the rollout settings live (v1alpha1: spec.updateStrategy; v1beta1: spec.updateStrategy.rollingUpdate,
// Kruise apis/apps/v1alpha1/cloneset_conversion.go), so each version passes its path and every read and
// write goes there: a patch never touches a path the member's API version does not have.
import { isJsonObject, type JsonObject, type KindInterpreter, type KObject } from '../../../src/interpreter/types.ts';
import { podTemplateDependencies } from '../../../src/k8s/pod-dependencies.ts';
import { volumeClaimTemplateNames } from './dependencies.ts';
import { specOf, templateReplicas } from './fields.ts';
import { kruiseHealthy } from './health.ts';
import { cloneSetPartitionReplicas } from './partition.ts';
import { retainMemberReplicas, retainSpecFields, rolloutControlled } from './retain.ts';
import { reviseKruiseReplicas, type SpecPath } from './revise.ts';
import { aggregateKruiseStatus, reflectKruiseStatus, type StatusProfile } from './status.ts';

export interface CloneSetVersion {
  apiVersion: string;
  /** The object under spec holding partition, maxUnavailable, maxSurge and paused. */
  rollout: SpecPath;
}

// Same status type in both versions (the conversion copies every field unchanged).
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

/** The object at `path` under spec, {} when any level is missing or not an object. */
function specObject(obj: KObject, path: SpecPath): JsonObject {
  let node: unknown = specOf(obj);
  for (const key of path) node = isJsonObject(node) ? node[key] : undefined;
  return isJsonObject(node) ? node : {};
}

export function cloneSetInterpreter(version: CloneSetVersion): KindInterpreter {
  const at = (field: string): SpecPath => [...version.rollout, field];
  return {
    name: 'typescript:CloneSet',
    targets: [{ apiVersion: version.apiVersion, kind: 'CloneSet' }],

    getReplicas: templateReplicas,

    reviseReplica(obj, replicas) {
      return reviseKruiseReplicas(obj, replicas, {
        keepBack: [at('partition')],
        budgets: [at('maxUnavailable'), at('maxSurge'), ['scaleStrategy', 'maxUnavailable']],
      });
    },

    retain(desired, observed) {
      retainMemberReplicas(desired, observed);
      // Pod names are cluster-local and the CloneSet controller removes names of pods already gone.
      retainSpecFields(desired, observed, ['scaleStrategy'], ['podsToDelete']);
      if (rolloutControlled(observed)) retainSpecFields(desired, observed, version.rollout, ['partition', 'paused']);
      return desired;
    },

    aggregateStatus: (obj, items) => aggregateKruiseStatus(obj, items, STATUS),

    reflectStatus: (observed) => reflectKruiseStatus(observed, STATUS),

    interpretHealth(observed) {
      // `type` stays at spec.updateStrategy in both versions; OnDelete holds the rollout in both.
      const type = specObject(observed, ['updateStrategy']).type;
      const rollout = specObject(observed, version.rollout);
      return kruiseHealthy(observed, (status, replicas) => {
        if (rollout.paused === true || type === 'OnDelete') return undefined;
        const expected = status.expectedUpdatedReplicas;
        return Number.isInteger(expected) ? expected : replicas - cloneSetPartitionReplicas(rollout.partition, replicas);
      });
    },

    getDependencies(obj) {
      const template = specOf(obj).template;
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
}
