// xline.io.datenlord.com/v1alpha1: the Go operator (xline-kv/xline-operator main). Its status says
// how far the last reconcile got (stage, stageStatus, lastMessage) and which spec it applied
// (lastApplySpecHash); nothing about member readiness, so health means "reconciled this spec".
import type { JsonObject, KObject } from '../../../../src/interpreter/types.ts';
import type { MemberVerdict, Reported, XlineApi } from '../../../shared/xline-cluster/api.ts';
import { objectRefKey, primitiveKey, unanimous } from '../../../shared/xline-cluster/values.ts';
import { specApplied } from './spec-hash.ts';

const STAGE_COMPLETE = 'complete';

function reflect(observed: KObject): Record<string, unknown> {
  const status: JsonObject = observed.status ?? {};
  const out: Record<string, unknown> = {};
  for (const key of ['stage', 'stageStatus', 'lastMessage', 'image', 'statefulSetRef', 'serviceRef', 'conditions']) {
    if (status[key] !== undefined && status[key] !== null) out[key] = status[key];
  }
  // Always present: a state-preservation rule may reference it, and a missing key aborts failover.
  out.lastApplySpecHash = typeof status.lastApplySpecHash === 'string' ? status.lastApplySpecHash : '';
  out.specApplied = isSpecApplied(observed.spec, status);
  return out;
}

/** By hash; for an operator build whose spec layout we do not know, by image as the weaker proof. */
function isSpecApplied(spec: unknown, status: JsonObject): boolean {
  if (typeof status.lastApplySpecHash !== 'string' || status.lastApplySpecHash === '') return false;
  return specApplied(spec, status.lastApplySpecHash) ?? (status.image !== undefined && status.image === (spec as any)?.image);
}

function verdict(s: JsonObject): MemberVerdict {
  if (typeof s.stage !== 'string' || s.stage === '') return { healthy: false, problem: 'has not reconciled yet' };
  if (s.stageStatus === 'failed') return { healthy: false, problem: `failed at ${s.stage}`, detail: s.lastMessage };
  if (s.stage !== STAGE_COMPLETE) return { healthy: false, problem: `is at stage ${s.stage}` };
  if (s.stageStatus !== 'succeeded') return { healthy: false, problem: `completed with stageStatus ${JSON.stringify(s.stageStatus ?? '')}` };
  if (s.specApplied !== true) return { healthy: false, problem: 'has not applied the current spec' };
  return { healthy: true };
}

/**
 * `stage: complete` / `stageStatus: succeeded` claim the template's spec is applied everywhere, so they
 * need every cluster to report, to be complete, and to run the template's latest generation.
 */
function aggregate(
  reported: ReadonlyArray<Reported>,
  { everyClusterReported, everyClusterCurrent, details }: { everyClusterReported: boolean; everyClusterCurrent: boolean; details: string[] },
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (details.length > 0) out.lastMessage = details.join('; ');
  const unfinished = reported.find((r) => typeof r.status.stage === 'string' && r.status.stage !== STAGE_COMPLETE);
  const allComplete =
    everyClusterReported && everyClusterCurrent && reported.every((r) => r.status.stage === STAGE_COMPLETE && r.status.stageStatus === 'succeeded');
  if (unfinished) out.stage = unfinished.status.stage;
  else if (allComplete) out.stage = STAGE_COMPLETE;
  if (reported.some((r) => r.status.stageStatus === 'failed')) out.stageStatus = 'failed';
  else if (allComplete) out.stageStatus = 'succeeded';
  for (const [field, key] of [
    ['image', primitiveKey],
    ['lastApplySpecHash', primitiveKey],
    ['statefulSetRef', objectRefKey],
    ['serviceRef', objectRefKey],
  ] as const) {
    const value = unanimous(
      reported.map((r) => r.status[field]),
      key,
    );
    if (value !== undefined) out[field] = value;
  }
  return out;
}

export const goOperator: XlineApi = {
  apiVersion: 'xline.io.datenlord.com/v1alpha1',
  operator: 'xline-operator (Go)',
  sizeField: 'replicas',
  schedulesMembers: false,
  onShare: 'keep',
  memberScalable: false,
  staleTemplate: 'problem',
  healthCondition: { type: 'Reconciled', trueReason: 'AllMembersReconciled', falseReason: 'MembersNotReconciled' },
  // The operator sets no resources, affinity or tolerations on its pods: nothing to schedule by.
  requirements: () => undefined,
  reflect,
  verdict,
  aggregate,
  summary: () => undefined,
  // 32 hex characters, or "" before the first completed reconcile: always a valid label value.
  preservation: [{ aliasLabelName: 'failover.karmada.io/xline-spec-hash', jsonPath: '{.lastApplySpecHash}' }],
  // Some operator builds mount spec.authSecret (a Secret); the others reference nothing that must travel.
  dependencies(obj) {
    const name = obj.spec?.authSecret?.name;
    return typeof name === 'string' && name !== '' ? [{ apiVersion: 'v1', kind: 'Secret', namespace: obj.metadata?.namespace, name }] : [];
  },
};
