// OpenKruise Advanced StatefulSet (apps.kruise.io/v1beta1 StatefulSet). What each operation does for
// users, and where it deliberately differs from Karmada's built-in customization, is in README.md.
import { type DependentObjectReference, isJsonObject, type KindInterpreter } from '../../../../src/interpreter/types.ts';
import { podTemplateDependencies } from '../../../../src/k8s/pod-dependencies.ts';
import { volumeClaimTemplateNames } from '../../shared/dependencies.ts';
import { annotationsOf, intOr0, specOf, templateReplicas } from '../../shared/fields.ts';
import { kruiseHealthy } from '../../shared/health.ts';
import { recordTemplateFields, retainMemberOwnedFields, type MemberOwnedField } from '../../../shared/managed-fields.ts';
import { retainMemberReplicas, retainSpecFields, rolloutControlled } from '../../shared/retain.ts';
import { reviseKruiseReplicas } from '../../shared/revise.ts';
import { aggregateKruiseStatus, reflectKruiseStatus, type StatusProfile } from '../../shared/status.ts';

/**
 * Opt-in, per object: also propagate the governing headless Service (spec.serviceName). Pod DNS names
 * (<pod>.<serviceName>) only resolve in a member that has that Service, but native StatefulSet does not
 * treat it as a dependency and many teams manage Services separately, so it is a choice.
 */
export const PROPAGATE_GOVERNING_SERVICE_ANNOTATION = 'interpreter.karmada.io/propagate-governing-service';

const STATUS: StatusProfile = {
  counters: ['replicas', 'readyReplicas', 'availableReplicas', 'currentReplicas', 'updatedReplicas', 'updatedReadyReplicas', 'updatedAvailableReplicas'],
  volumeClaims: true,
};

const spec = specOf;

const reservesOrdinals = (value: unknown): boolean => Array.isArray(value) && value.length > 0;

/**
 * Ordinals reserved in the member (pod migration off a bad node) stay unless the template reserves its
 * own; ordinals the template had reserved and removed are released (managed-fields.ts).
 */
const MEMBER_OWNED_FIELDS: readonly MemberOwnedField[] = [{ name: 'reserveOrdinals', templateSets: reservesOrdinals, memberKeeps: reservesOrdinals }];

const byKindThenName = (a: DependentObjectReference, b: DependentObjectReference): number =>
  a.kind === b.kind ? ((a.name ?? '') < (b.name ?? '') ? -1 : (a.name ?? '') > (b.name ?? '') ? 1 : 0) : a.kind < b.kind ? -1 : 1;

export const advancedStatefulSet: KindInterpreter = {
  name: 'typescript:AdvancedStatefulSet',
  targets: [{ apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet' }],

  getReplicas: templateReplicas,

  reviseReplica(obj, replicas) {
    // The validating webhook accepts a maxUnavailable other than 1 only with Parallel pod management;
    // under OrderedReady the budgets are left exactly as the template has them.
    const parallel = spec(obj).podManagementPolicy === 'Parallel';
    recordTemplateFields(obj, MEMBER_OWNED_FIELDS);
    return reviseKruiseReplicas(obj, replicas, {
      keepBack: [['updateStrategy', 'rollingUpdate', 'partition']],
      budgets: parallel
        ? [
            ['updateStrategy', 'rollingUpdate', 'maxUnavailable'],
            ['scaleStrategy', 'maxUnavailable'],
          ]
        : [],
    });
  },

  retain(desired, observed) {
    retainMemberReplicas(desired, observed);
    if (rolloutControlled(observed)) {
      retainSpecFields(desired, observed, ['updateStrategy', 'rollingUpdate'], ['partition', 'paused']);
    }
    retainMemberOwnedFields(desired, observed, MEMBER_OWNED_FIELDS);
    return desired;
  },

  aggregateStatus: (obj, items) => aggregateKruiseStatus(obj, items, STATUS),

  reflectStatus: (observed) => reflectKruiseStatus(observed, STATUS),

  interpretHealth(observed) {
    const strategy = isJsonObject(spec(observed).updateStrategy) ? spec(observed).updateStrategy : {};
    const rolling = isJsonObject(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
    return kruiseHealthy(observed, (_status, replicas) => {
      if (strategy.type === 'OnDelete' || rolling.paused === true) return undefined;
      // Ordinals at or above the partition are updated. With reserveOrdinals above the partition fewer
      // pods can be updatable; that edge reads as "rollout incomplete".
      return Math.max(0, replicas - intOr0(rolling.partition));
    });
  },

  getDependencies(obj) {
    const template = spec(obj).template;
    const namespace = isJsonObject(obj.metadata) && typeof obj.metadata.namespace === 'string' ? obj.metadata.namespace : '';
    const dependencies = isJsonObject(template) ? podTemplateDependencies(template, namespace, { excludeClaimNames: volumeClaimTemplateNames(obj) }) : [];
    const serviceName = spec(obj).serviceName;
    if (annotationsOf(obj)[PROPAGATE_GOVERNING_SERVICE_ANNOTATION] === 'true' && typeof serviceName === 'string' && serviceName !== '') {
      dependencies.push({ apiVersion: 'v1', kind: 'Service', namespace, name: serviceName });
      dependencies.sort(byKindThenName);
    }
    return dependencies;
  },

  // Rollout markers only: the real state of a stateful workload lives in PVCs, which do not move with
  // failover. Revision names are "<name>-<hash>", valid label values while the name has at most 52
  // characters; the counters are always valid.
  preservation: [
    { aliasLabelName: 'failover.karmada.io/current-revision', jsonPath: '{.currentRevision}' },
    { aliasLabelName: 'failover.karmada.io/update-revision', jsonPath: '{.updateRevision}' },
    { aliasLabelName: 'failover.karmada.io/current-replicas', jsonPath: '{.currentReplicas}' },
    { aliasLabelName: 'failover.karmada.io/updated-replicas', jsonPath: '{.updatedReplicas}' },
  ],
};
