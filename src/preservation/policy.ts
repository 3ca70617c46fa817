// Where state-preservation rules come from: a PropagationPolicy or ClusterPropagationPolicy
// (policy.karmada.io/v1alpha1, pkg/apis/policy/v1alpha1/propagation_types.go), a bare list of rules,
// or `{rules: [...]}`.

import type { StatePreservationRule } from '../interpreter/types.ts';
import { describeUnknownFields, unknownFields, type Shape } from '../k8s/strict-fields.ts';

export class PreservationInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PreservationInputError';
  }
}

const POLICY_API_VERSION = 'policy.karmada.io/v1alpha1';
const POLICY_KINDS = new Set(['PropagationPolicy', 'ClusterPropagationPolicy']);
/** FailoverBehavior's two members that carry `statePreservation.rules`. */
const FAILOVER_SOURCES = ['application', 'cluster'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The fields of the parts of a (Cluster)PropagationPolicy we read, as its CRD declares them
 * (karmada-io/karmada charts/karmada/_crds/bases/policy/policy.karmada.io_propagationpolicies.yaml):
 * a misspelled field there is an error, as `kubectl apply` refuses it, instead of a rule silently lost.
 * The rest of spec (placement, resourceSelectors, ...) is not read, so only its field names are checked.
 */
const RULE_SHAPE: Shape = { fields: { aliasLabelName: 'any', jsonPath: 'any' } };
const STATE_PRESERVATION_SHAPE: Shape = { fields: { rules: { items: RULE_SHAPE } } };
const POLICY_SHAPE: Shape = {
  fields: {
    apiVersion: 'any',
    kind: 'any',
    metadata: 'any',
    spec: {
      fields: {
        ...Object.fromEntries(
          [
            'activationPreference',
            'association',
            'conflictResolution',
            'dependentOverrides',
            'placement',
            'preemption',
            'preserveResourcesOnDeletion',
            'priority',
            'propagateDeps',
            'resourceSelectors',
            'schedulePriority',
            'schedulerName',
            'suspension',
          ].map((field) => [field, 'any' as const]),
        ),
        failover: {
          fields: {
            application: {
              fields: {
                decisionConditions: { fields: { tolerationSeconds: 'any' } },
                gracePeriodSeconds: 'any',
                purgeMode: 'any',
                statePreservation: STATE_PRESERVATION_SHAPE,
              },
            },
            cluster: { fields: { purgeMode: 'any', statePreservation: STATE_PRESERVATION_SHAPE } },
          },
        },
      },
    },
  },
};
/** The short form `{rules: [...]}`. */
const RULES_SHAPE: Shape = { fields: { rules: { items: RULE_SHAPE } } };

function refuseUnknownFields(value: unknown, shape: Shape, where: string): void {
  const unknown = unknownFields(value, shape);
  if (unknown.length > 0) throw new PreservationInputError(`${where}${describeUnknownFields(unknown)}`);
}

/**
 * Rules one request may hold (Karmada sets no maximum; a policy has a handful). With the per-rule
 * JSONPath caps this bounds the size of an answer.
 */
export const MAX_PRESERVATION_RULES = 100;

/** A name from the input quoted in a message, cut to a readable length. */
function shortName(value: string): string {
  return value.length > 80 ? `${value.slice(0, 77)}...` : value;
}

/** Checks the StatePreservationRule shape (both fields are required strings in the CRD). */
export function validateRules(value: unknown, where: string): StatePreservationRule[] {
  if (!Array.isArray(value)) throw new PreservationInputError(`${where}: expected a list of rules`);
  if (value.length > MAX_PRESERVATION_RULES) {
    throw new PreservationInputError(`${where}: ${value.length} rules, more than ${MAX_PRESERVATION_RULES} (a limit of this server)`);
  }
  const problems: string[] = [];
  const rules: StatePreservationRule[] = [];
  value.forEach((rule, index) => {
    const at = `${where}[${index}]`;
    if (!isRecord(rule)) {
      problems.push(`${at}: expected an object with aliasLabelName and jsonPath`);
      return;
    }
    const unknown = unknownFields(rule, RULE_SHAPE);
    if (unknown.length > 0) problems.push(`${at}: ${describeUnknownFields(unknown)}`);
    for (const key of ['aliasLabelName', 'jsonPath'] as const) {
      if (typeof rule[key] !== 'string') problems.push(`${at}.${key}: required, must be a string`);
    }
    if (typeof rule.aliasLabelName === 'string' && typeof rule.jsonPath === 'string') {
      rules.push({ aliasLabelName: rule.aliasLabelName, jsonPath: rule.jsonPath });
    }
  });
  if (problems.length > 0) throw new PreservationInputError(problems.join('; '));
  return rules;
}

function rulesOfPolicy(policy: Record<string, unknown>): StatePreservationRule[] {
  const name = isRecord(policy.metadata) && typeof policy.metadata.name === 'string' ? shortName(policy.metadata.name) : '(unnamed)';
  if (policy.apiVersion !== POLICY_API_VERSION) {
    throw new PreservationInputError(`${policy.kind} ${name}: apiVersion must be ${POLICY_API_VERSION}, got ${shortName(String(policy.apiVersion))}`);
  }
  refuseUnknownFields(policy, POLICY_SHAPE, `${policy.kind} ${name}: `);
  const failover = isRecord(policy.spec) && isRecord(policy.spec.failover) ? policy.spec.failover : undefined;
  const rules: StatePreservationRule[] = [];
  let found = false;
  for (const source of FAILOVER_SOURCES) {
    const behavior = failover?.[source];
    if (!isRecord(behavior) || behavior.statePreservation === undefined || behavior.statePreservation === null) continue;
    const where = `spec.failover.${source}.statePreservation.rules`;
    if (!isRecord(behavior.statePreservation))
      throw new PreservationInputError(`${policy.kind} ${name}: spec.failover.${source}.statePreservation must be an object`);
    found = true;
    rules.push(...validateRules(behavior.statePreservation.rules, `${policy.kind} ${name}: ${where}`));
  }
  if (!found) {
    throw new PreservationInputError(
      `${policy.kind} ${name} has no state preservation rules (spec.failover.application.statePreservation.rules or spec.failover.cluster.statePreservation.rules)`,
    );
  }
  return rules;
}

/**
 * Rules from a PropagationPolicy / ClusterPropagationPolicy (application rules, then cluster rules,
 * exact duplicates dropped), a List of policies, a bare list of rules, or `{rules: [...]}`.
 */
export function rulesFromPolicy(doc: unknown): StatePreservationRule[] {
  let rules: StatePreservationRule[];
  if (Array.isArray(doc)) {
    rules = validateRules(doc, 'rules');
  } else if (isRecord(doc) && typeof doc.kind === 'string' && POLICY_KINDS.has(doc.kind)) {
    rules = rulesOfPolicy(doc);
  } else if (isRecord(doc) && Array.isArray(doc.items) && typeof doc.kind === 'string' && doc.kind.endsWith('List')) {
    const policies = doc.items.filter((item) => isRecord(item) && typeof item.kind === 'string' && POLICY_KINDS.has(item.kind));
    if (policies.length === 0) throw new PreservationInputError(`${doc.kind} holds no PropagationPolicy or ClusterPropagationPolicy`);
    rules = policies.flatMap((policy) => rulesOfPolicy(policy as Record<string, unknown>));
  } else if (isRecord(doc) && doc.kind === undefined && 'rules' in doc) {
    refuseUnknownFields(doc, RULES_SHAPE, '');
    rules = validateRules(doc.rules, 'rules');
  } else {
    const got = isRecord(doc) ? (typeof doc.kind === 'string' ? `kind ${shortName(doc.kind)}` : 'an object without kind or rules') : typeof doc;
    throw new PreservationInputError(
      `expected a PropagationPolicy or ClusterPropagationPolicy (${POLICY_API_VERSION}), a list of rules, or {"rules": [...]}; got ${got}`,
    );
  }
  // A List can hold many policies: the limit applies to the rules together.
  if (rules.length > MAX_PRESERVATION_RULES) {
    throw new PreservationInputError(`${rules.length} rules, more than ${MAX_PRESERVATION_RULES} (a limit of this server)`);
  }
  const seen = new Set<string>();
  return rules.filter((rule) => {
    const key = JSON.stringify([rule.aliasLabelName, rule.jsonPath]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
