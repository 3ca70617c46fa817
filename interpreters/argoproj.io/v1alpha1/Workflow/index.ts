// Argo Workflow (argoproj.io/v1alpha1): one workflow runs in one cluster, and nothing the member or
// the user does there is lost. Behaviour and the differences from Karmada's built-in: README.md.
import type { KindInterpreter } from '../../../../src/interpreter/types.ts';
import { aggregateStatus } from './aggregate.ts';
import { getDependencies } from './dependencies.ts';
import { interpretHealth } from './health.ts';
import { preservation } from './preservation.ts';
import { getReplicas } from './requirements.ts';
import { retain, reviseReplica } from './retain.ts';
import { reflectStatus } from './status.ts';

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
