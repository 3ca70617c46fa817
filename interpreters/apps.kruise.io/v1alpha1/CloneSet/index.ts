// OpenKruise CloneSet (apps.kruise.io/v1alpha1). What each operation does for users, and where it
// deliberately differs from Karmada's built-in customization, is in README.md next to this file; the
// implementation is shared with v1beta1 (../../shared/cloneset.ts).
import { cloneSetInterpreter } from '../../shared/cloneset.ts';

/** v1alpha1 keeps partition, maxUnavailable, maxSurge and paused directly under spec.updateStrategy. */
export const cloneSet = cloneSetInterpreter({ apiVersion: 'apps.kruise.io/v1alpha1', rollout: ['updateStrategy'] });
