// Argo Workflow (argoproj.io/v1alpha1): one workflow runs in one cluster, and nothing the member or
// the user does there is lost. Behaviour and the differences from Karmada's built-in: README.md.
import type { KindInterpreter } from '../../../../src/interpreter/types.js';
import { aggregateStatus } from './aggregate.js';
import { getDependencies } from './dependencies.js';
import { interpretHealth } from './health.js';
import { preservation } from './preservation.js';
import { getReplicas } from './requirements.js';
import { retain, reviseReplica } from './retain.js';
import { reflectStatus } from './status.js';

export const workflowInterpreter: KindInterpreter = {
  name: 'typescript:Workflow',
  targets: [{ apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow' }],
  getReplicas,
  reviseReplica,
  retain,
  aggregateStatus,
  reflectStatus,
  interpretHealth,
  getDependencies,
  preservation,
};

export default workflowInterpreter;
