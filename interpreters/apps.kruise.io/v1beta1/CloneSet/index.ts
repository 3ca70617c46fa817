// OpenKruise CloneSet (apps.kruise.io/v1beta1, Kruise's storage version from commit a1502a379). Same
// semantics as v1alpha1 (README.md next to this file says what moved); the implementation is shared
// (../../shared/cloneset.ts).
import { cloneSetInterpreter } from '../../shared/cloneset.ts';

/**
 * v1beta1 moves partition, maxUnavailable, maxSurge and paused under spec.updateStrategy.rollingUpdate
 * (Kruise apis/apps/v1beta1/cloneset_types.go RollingUpdateCloneSetStrategy).
 */
export const cloneSetV1beta1 = cloneSetInterpreter({ apiVersion: 'apps.kruise.io/v1beta1', rollout: ['updateStrategy', 'rollingUpdate'] });
