// InterpretReplica, ReviseReplica and Retain: the member count of one Xline consensus group.
// The group is never divided between member clusters: a share of it would be a separate group
// with its own (empty) data, and both CRDs reject fewer than 3 members anyway.
import { InterpreterError, type KObject, type ReplicaResult } from '../../../src/interpreter/types.ts';
import type { XlineApi } from './api.ts';
import { MIN_MEMBERS } from './quorum.ts';
import { isCount } from './values.ts';

/** The Deployment convention (Karmada native Retain): the template opts in to a member autoscaler. */
export const RETAIN_REPLICAS_LABEL = 'resourcetemplate.karmada.io/retain-replicas';

const describe = (obj: KObject): string => `XlineCluster ${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;

export function getReplicas(api: XlineApi, obj: KObject): ReplicaResult {
  if (!api.schedulesMembers) return { replicas: 0 };
  const count = obj.spec?.[api.sizeField];
  if (!isCount(count)) throw new InterpreterError(400, `${describe(obj)} has no integer spec.${api.sizeField}`);
  const requirements = api.requirements(obj);
  return requirements ? { replicas: count, requirements } : { replicas: count };
}

export function reviseReplica(api: XlineApi, obj: KObject, share: number): KObject {
  const field = `spec.${api.sizeField}`;
  const count = obj.spec?.[api.sizeField];
  if (!isCount(count) || count < MIN_MEMBERS) {
    throw new InterpreterError(
      400,
      `${describe(obj)} has ${field} ${JSON.stringify(count)}: an Xline group needs at least ${MIN_MEMBERS} members and the member cluster's CRD rejects fewer; set ${field} >= ${MIN_MEMBERS} in the resource template`,
    );
  }
  if (share === count || api.onShare === 'keep') return obj;
  throw new InterpreterError(
    400,
    `ReviseReplica would set ${field} ${share} in this member cluster, but ${describe(obj)} is one Xline group of ${count} members: ` +
      `a share of it would be a separate group with separate data${share < MIN_MEMBERS ? `, and ${share} < ${MIN_MEMBERS} is rejected by the member CRD` : ''}. ` +
      `Set spec.placement.replicaScheduling.replicaSchedulingType: Duplicated in the PropagationPolicy (every selected cluster runs the whole group); ` +
      `to size clusters differently, override ${field} per cluster with an OverridePolicy`,
  );
}

export function retain(api: XlineApi, desired: KObject, observed: KObject): KObject {
  const memberCount = observed.spec?.[api.sizeField];
  if (api.memberScalable && desired.metadata?.labels?.[RETAIN_REPLICAS_LABEL] === 'true' && isCount(memberCount) && memberCount >= MIN_MEMBERS) {
    desired.spec = { ...desired.spec, [api.sizeField]: memberCount };
  }
  return desired;
}
