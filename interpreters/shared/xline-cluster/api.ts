// What an XlineCluster API version must provide: one XlineApi per operator (go-operator.ts, rust-operator.ts).
import type { DependentObjectReference, JsonObject, KObject, ReplicaRequirements, StatePreservationRule } from '../../../src/interpreter/types.ts';

/** One member cluster's XlineCluster, judged from its reflected status (InterpretStatus output). */
export interface MemberVerdict {
  healthy: boolean;
  /** Why it is unhealthy, short, after the cluster name: "failed at Xline/Statefulset". */
  problem?: string;
  /** The operator's own words for lastMessage, when it has any. */
  detail?: string;
  /** Healthy but below full strength: "2/3 members available (quorum 2)". */
  degraded?: string;
}

/** A member cluster that reported a status, with its reflected status. */
export interface Reported {
  cluster: string;
  status: JsonObject;
}

export interface XlineApi {
  apiVersion: string;
  /** The operator that serves this API, for messages. */
  operator: string;
  /** The spec field holding the group's member count (also the reflected key carrying it). */
  sizeField: 'replicas' | 'size';
  /** InterpretReplica reports the member count and per-member requirements (true), or 0 (false). */
  schedulesMembers: boolean;
  /** ReviseReplica asked for a share other than the template's count: keep the template's, or refuse. */
  onShare: 'keep' | 'reject';
  /** A scale subresource exists, so a member autoscaler may own the count (retain-replicas label). */
  memberScalable: boolean;
  /**
   * A member whose resourceTemplateGeneration is behind the template's generation: 'problem' when the
   * aggregated condition claims the latest spec is applied (Go: Reconciled), 'note' when it states a
   * live property the older spec does not change (Rust: QuorumAvailable), where the lag is only named.
   */
  staleTemplate: 'problem' | 'note';
  /** Type of the aggregated condition that names the clusters in trouble. */
  healthCondition: { type: string; trueReason: string; falseReason: string };
  requirements(obj: KObject): ReplicaRequirements | undefined;
  /** Version-specific part of InterpretStatus (generations and the count are added by the caller). */
  reflect(observed: KObject): Record<string, unknown>;
  verdict(reflected: JsonObject): MemberVerdict;
  /**
   * Version-specific aggregated status fields from the clusters that reported a status.
   * `everyClusterReported`: no cluster is unapplied or silent; `everyClusterCurrent`: every reporting
   * cluster runs the template's latest generation; `details`: "cluster: message" per problem.
   */
  aggregate(
    reported: ReadonlyArray<Reported>,
    context: { everyClusterReported: boolean; everyClusterCurrent: boolean; details: string[] },
  ): Record<string, unknown>;
  /** Extra words for the health condition's message (totals). */
  summary(reported: ReadonlyArray<Reported>): string | undefined;
  dependencies(obj: KObject): DependentObjectReference[];
  /** Recommended state-preservation rules: label-safe values whose keys reflect() always emits. */
  preservation: StatePreservationRule[];
}
