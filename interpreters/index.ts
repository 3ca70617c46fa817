// The built-in TypeScript interpreters. The webhook configuration printed by `webhook-config` is
// generated from this list (plus loaded Lua customizations), so what Karmada is told we serve can
// never drift from what the server implements. Add one import and one entry per kind module.
import type { KindInterpreter } from '../src/interpreter/types.ts';
import { cloneSet } from './apps.kruise.io/v1alpha1/CloneSet/index.ts';
import { cloneSetV1beta1 } from './apps.kruise.io/v1beta1/CloneSet/index.ts';
import { advancedStatefulSet } from './apps.kruise.io/v1beta1/StatefulSet/index.ts';
import { workflowInterpreter } from './argoproj.io/v1alpha1/Workflow/index.ts';
import { goXlineClusterInterpreter } from './xline.io.datenlord.com/v1alpha1/XlineCluster/index.ts';
import { rustXlineClusterInterpreter } from './xlineoperator.xline.cloud/v1alpha1/XlineCluster/index.ts';

export const builtinInterpreters: KindInterpreter[] = [
  cloneSet,
  cloneSetV1beta1,
  advancedStatefulSet,
  workflowInterpreter,
  goXlineClusterInterpreter,
  rustXlineClusterInterpreter,
];
