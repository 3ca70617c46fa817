// Consensus arithmetic for an Xline (CURP/Raft) group of n members.

/** Members that must agree for a write to commit: n/2 + 1. */
export const quorum = (n: number): number => Math.floor(n / 2) + 1;

/** Members the group can lose and still commit writes. */
export const faultTolerance = (n: number): number => n - quorum(n);

/** Smallest group the operators accept (both CRDs: minimum 3). */
export const MIN_MEMBERS = 3;

export interface ClusterMembers {
  cluster: string;
  members: number;
}

export type PlacementVerdict =
  | { survivesClusterLoss: true; reason: 'SpreadForClusterLoss'; message: string }
  | { survivesClusterLoss: false; reason: 'MembersConcentrated' | 'GroupPerCluster'; message: string };

/**
 * Can the placement lose any one member cluster and keep a working group?
 * The clusters form ONE group only when their local member counts add up to the template's size
 * (the multi-cluster topology in the README: the template states the global size, OverridePolicies
 * set each cluster's share). Otherwise every cluster runs its own independent group, and losing a
 * cluster loses that group and its data.
 */
export function placementVerdict(clusters: ClusterMembers[], templateSize: number): PlacementVerdict {
  const total = clusters.reduce((sum, c) => sum + c.members, 0);
  const list = (cs: ClusterMembers[]): string => cs.map((c) => `${c.cluster} (${c.members})`).join(', ');
  if (clusters.length > 1 && total === templateSize) {
    const f = faultTolerance(total);
    const concentrated = clusters.filter((c) => c.members > f);
    if (concentrated.length === 0) {
      return {
        survivesClusterLoss: true,
        reason: 'SpreadForClusterLoss',
        message: `one group of ${total} members (quorum ${quorum(total)}) over ${list(clusters)}: no cluster hosts more than ${f}`,
      };
    }
    return {
      survivesClusterLoss: false,
      reason: 'MembersConcentrated',
      message: `one group of ${total} members (quorum ${quorum(total)}) can lose at most ${f}; losing ${list(concentrated)} loses quorum`,
    };
  }
  return {
    survivesClusterLoss: false,
    reason: 'GroupPerCluster',
    message:
      clusters.length === 1
        ? `all members run in ${list(clusters)}: losing that cluster loses the group and its data`
        : `each cluster runs an independent group (${list(clusters)}): losing a cluster loses its group and that group's data`,
  };
}
