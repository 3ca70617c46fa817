// Recommended state-preservation rules for Argo Workflow. They run against the
// reflected status (status.ts), where `phase` and `suspended` are always present, and every value they
// can produce ("", Pending, Running, Succeeded, Failed, Error; true, false) is a valid label value.
// Unprefixed aliases let the re-created Workflow read them as {{workflow.labels.<alias>}}.
import type { StatePreservationRule } from '../../../../src/interpreter/types.ts';

export const preservation: StatePreservationRule[] = [
  // The phase of the run that was evicted: tells the new run it is a re-run, and whether the old one failed
  // ("Failed"/"Error") or was never picked up by an Argo controller ("").
  { aliasLabelName: 'failover.karmada.io/workflow-phase', jsonPath: '{.phase}' },
  // Whether the evicted run was suspended: spec.suspend, or a suspend step / approval gate waiting
  // (Argo's IsWorkflowSuspended, reflected by status.ts).
  { aliasLabelName: 'failover.karmada.io/workflow-suspended', jsonPath: '{.suspended}' },
];
