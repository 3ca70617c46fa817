// xlineoperator.xline.cloud/v1alpha1: the earlier Rust operator (xline-kv/xline-operator, crd-api
// v1alpha1), the one Karmada's Xline experiments used. spec.size members, one user-supplied
// container, affinity, PVC templates (data, pvcs, backup.pvc) and a scale subresource
// (.spec.size / .status.available). Its status counts available members, so health is quorum-aware.
import type { JsonObject, KObject } from '../../../../src/interpreter/types.ts';
import { podTemplateDependencies } from '../../../../src/k8s/pod-dependencies.ts';
import { podTemplateRequirements } from '../../../../src/k8s/pod-requirements.ts';
import type { MemberVerdict, XlineApi } from '../../../shared/xline-cluster/api.ts';
import { quorum } from '../../../shared/xline-cluster/quorum.ts';
import { isCount } from '../../../shared/xline-cluster/values.ts';

/** The operator's pods as a pod template: the one container and the affinity are all it takes from the spec. */
function podTemplateOf(obj: KObject): KObject {
  const spec: KObject = { containers: obj.spec?.container ? [obj.spec.container] : [] };
  if (obj.spec?.affinity) spec.affinity = obj.spec.affinity;
  return { spec };
}

function reflect(observed: KObject): Record<string, unknown> {
  const status: JsonObject = observed.status ?? {};
  const out: Record<string, unknown> = {
    // Always present (0 until the operator reports): health, aggregation and preservation rules read it.
    available: isCount(status.available) ? status.available : 0,
  };
  if (status.members && typeof status.members === 'object') out.members = status.members;
  return out;
}

function verdict(s: JsonObject): MemberVerdict {
  const size = s.size;
  if (!isCount(size) || size === 0) return { healthy: false, problem: `has no valid spec.size (${JSON.stringify(size)})` };
  const available = isCount(s.available) ? s.available : 0;
  const needed = quorum(size);
  const counts = `${available}/${size} members available (quorum ${needed})`;
  // Below quorum the group cannot commit writes. Between quorum and full strength it still serves
  // (CURP's fast path may need more): report it as degraded, not unhealthy, because Unhealthy feeds
  // application failover, and a moved group starts empty elsewhere.
  if (available < needed) return { healthy: false, problem: `has no quorum: ${counts}` };
  if (available < size) return { healthy: true, degraded: counts };
  return { healthy: true };
}

export const rustOperator: XlineApi = {
  apiVersion: 'xlineoperator.xline.cloud/v1alpha1',
  operator: 'xline-operator (Rust)',
  sizeField: 'size',
  schedulesMembers: true,
  onShare: 'reject',
  memberScalable: true,
  staleTemplate: 'note',
  healthCondition: { type: 'QuorumAvailable', trueReason: 'AllGroupsHaveQuorum', falseReason: 'MembersWithoutQuorum' },
  requirements: (obj) => podTemplateRequirements(podTemplateOf(obj)),
  reflect,
  verdict,
  aggregate(reported) {
    const out: Record<string, unknown> = { available: reported.reduce((sum, r) => sum + (isCount(r.status.available) ? r.status.available : 0), 0) };
    // Member names repeat in every cluster (<name>-nodes-<i>): qualify them with the cluster.
    const members: Record<string, unknown> = {};
    for (const r of reported) {
      for (const [name, address] of Object.entries(r.status.members ?? {})) members[`${r.cluster}/${name}`] = address;
    }
    if (Object.keys(members).length > 0) out.members = members;
    return out;
  },
  summary(reported) {
    const available = reported.reduce((sum, r) => sum + (isCount(r.status.available) ? r.status.available : 0), 0);
    const size = reported.reduce((sum, r) => sum + (isCount(r.status.size) ? r.status.size : 0), 0);
    return `${available}/${size} members available in ${reported.length} cluster${reported.length === 1 ? '' : 's'}`;
  },
  // An integer: how many members were available in the cluster that failed.
  preservation: [{ aliasLabelName: 'failover.karmada.io/xline-available-members', jsonPath: '{.available}' }],
  // Env and envFrom references of the container (S3 credentials travel this way); the PVCs in
  // data, pvcs and backup.pvc are claim templates the StatefulSet creates per pod in the member.
  dependencies: (obj) => podTemplateDependencies(podTemplateOf(obj), obj.metadata?.namespace ?? ''),
};
