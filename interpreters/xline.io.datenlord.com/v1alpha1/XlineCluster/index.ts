// XlineCluster, one module for both operator APIs (the Go operator's xline.io.datenlord.com and the
// earlier Rust operator's xlineoperator.xline.cloud). What differs per API version is the table in
// versions.ts; every operation below is shared. README.md explains each choice.
import type { KindInterpreter, StatePreservationRule } from '../../../../src/interpreter/types.ts';
import { aggregateStatus } from './aggregate.ts';
import { getReplicas, retain, reviseReplica } from './replicas.ts';
import { interpretHealth, reflectStatus } from './status.ts';
import { apiOf, XLINE_APIS } from './versions.ts';

/**
 * Each API version's rules (versions.ts); a rule is valid only for objects of its own API version.
 * Stage ("Xline/Statefulset") and image ("repo/x:tag") are deliberately absent: not valid label values.
 */
export const XLINE_PRESERVATION: StatePreservationRule[] = XLINE_APIS.flatMap((api) => api.preservation);

export const xlineClusterInterpreter: KindInterpreter = {
  name: 'typescript:XlineCluster',
  targets: XLINE_APIS.map((api) => ({ apiVersion: api.apiVersion, kind: 'XlineCluster' })),
  getReplicas,
  reviseReplica,
  retain,
  aggregateStatus,
  reflectStatus,
  interpretHealth,
  getDependencies: (obj) => apiOf(obj).dependencies(obj),
  preservation: XLINE_PRESERVATION,
};

export default xlineClusterInterpreter;
