// The XlineCluster operations both operator APIs share, as a factory: each API version's folder
// (xline.io.datenlord.com/v1alpha1/XlineCluster for the Go operator, xlineoperator.xline.cloud/v1alpha1/
// XlineCluster for the Rust operator) builds its KindInterpreter from its own XlineApi row.
// What differs per API version is only what an XlineApi says (api.ts).
import { InterpreterError, type KindInterpreter, type KObject } from '../../../src/interpreter/types.ts';
import { aggregateStatus } from './aggregate.ts';
import type { XlineApi } from './api.ts';
import { getReplicas, retain, reviseReplica } from './replicas.ts';
import { interpretHealth, reflectStatus } from './status.ts';

/** The object must be of the API version this interpreter serves: the two CRDs share no field layout. */
function checked(api: XlineApi, obj: KObject): KObject {
  if (obj?.apiVersion !== api.apiVersion) {
    throw new InterpreterError(
      400,
      `XlineCluster apiVersion ${JSON.stringify(obj?.apiVersion)} is not ${api.apiVersion} (served by the ${api.operator} module)`,
    );
  }
  return obj;
}

export function xlineClusterInterpreter(api: XlineApi): KindInterpreter {
  return {
    name: `typescript:XlineCluster(${api.apiVersion})`,
    targets: [{ apiVersion: api.apiVersion, kind: 'XlineCluster' }],
    getReplicas: (obj) => getReplicas(api, checked(api, obj)),
    reviseReplica: (obj, share) => reviseReplica(api, checked(api, obj), share),
    retain: (desired, observed) => retain(api, checked(api, desired), observed),
    aggregateStatus: (obj, items) => aggregateStatus(api, checked(api, obj), items),
    reflectStatus: (observed) => reflectStatus(api, checked(api, observed)),
    interpretHealth: (observed) => interpretHealth(api, checked(api, observed)),
    getDependencies: (obj) => api.dependencies(checked(api, obj)),
    preservation: api.preservation,
  };
}
