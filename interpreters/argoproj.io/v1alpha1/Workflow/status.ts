// InterpretStatus for Argo Workflow: the summary Karmada copies into Work and ResourceBinding status.
// It is also the input of AggregateStatus and of state-preservation JSONPaths, so `phase` and `suspended`
// are always present (a missing key fails a preservation rule).
import { isJsonObject, type JsonObject, type KObject } from '../../../../src/interpreter/types.ts';
import { isWorkflowSuspended, workflowNodes } from './nodes.ts';
import { asArray } from './templates.ts';

/** Status fields copied as they are. Never `nodes`, `storedTemplates`, `storedWorkflowTemplateSpec`. */
export const SUMMARY_FIELDS = ['startedAt', 'finishedAt', 'estimatedDuration', 'progress', 'message', 'conditions', 'resourcesDuration'] as const;

export const NODE_PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Error', 'Skipped', 'Omitted'] as const;

/** Counts of nodes per phase (only phases that occur). Absent when the nodes are offloaded. */
function nodeSummary(nodes: JsonObject): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const node of Object.values(nodes)) {
    const phase = isJsonObject(node) ? node.phase : undefined;
    if ((NODE_PHASES as readonly string[]).includes(phase)) counts[phase] = (counts[phase] ?? 0) + 1;
  }
  return counts;
}

/**
 * Global output parameters only: output artifacts name storage locations in the member's artifact
 * repository, which are large and mean nothing elsewhere.
 */
function outputParameters(outputs: unknown): JsonObject | undefined {
  if (!isJsonObject(outputs) || !Array.isArray(outputs.parameters)) return undefined;
  return { parameters: asArray(outputs.parameters) };
}

export function reflectStatus(observed: KObject): JsonObject {
  const status: JsonObject = isJsonObject(observed.status) ? observed.status : {};
  const spec: JsonObject = isJsonObject(observed.spec) ? observed.spec : {};
  const reflected: JsonObject = { phase: typeof status.phase === 'string' ? status.phase : '' };
  for (const field of SUMMARY_FIELDS) if (status[field] !== undefined && status[field] !== null) reflected[field] = status[field];
  const outputs = outputParameters(status.outputs);
  if (outputs) reflected.outputs = outputs;
  const nodes = workflowNodes(status);
  if (nodes) reflected.nodeSummary = nodeSummary(nodes);
  reflected.suspended = isWorkflowSuspended(spec, nodes);
  if (typeof spec.shutdown === 'string' && spec.shutdown !== '') reflected.shutdown = spec.shutdown;
  return reflected;
}
