// One row per XlineCluster API version. What differs:
//
// | apiVersion                          | count field | InterpretReplica      | share ≠ count | member autoscaler | health            | aggregated condition |
// | xline.io.datenlord.com/v1alpha1     | replicas    | 0 (not a workload)    | keep count    | no (no scale)     | reconciled spec   | Reconciled           |
// | xlineoperator.xline.cloud/v1alpha1  | size        | size + requirements   | refuse (400)  | yes (scale sub.)  | quorum            | QuorumAvailable      |
//
// Details and reasons: README.md beside this file.
import { InterpreterError, type KObject } from '../../../../src/interpreter/types.ts';
import { goOperator } from './goOperator.ts';
import type { XlineApi } from './profile.ts';
import { rustOperator } from './rustOperator.ts';

export const XLINE_APIS: ReadonlyArray<XlineApi> = [goOperator, rustOperator];

export function apiOf(obj: KObject): XlineApi {
  const api = XLINE_APIS.find((a) => a.apiVersion === obj?.apiVersion);
  if (!api) {
    throw new InterpreterError(400, `XlineCluster apiVersion ${JSON.stringify(obj?.apiVersion)} is not one of ${XLINE_APIS.map((a) => a.apiVersion).join(', ')}`);
  }
  return api;
}
