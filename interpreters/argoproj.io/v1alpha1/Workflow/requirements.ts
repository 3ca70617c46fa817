// InterpretReplica for Argo Workflow: one unit of work, sized by the largest pod it can create.
import { isDeepStrictEqual } from 'node:util';
import type { KObject, ReplicaRequirements, ReplicaResult } from '../../../../src/interpreter/types.ts';
import { podTemplateRequirements } from '../../../../src/k8s/podtemplate.ts';
import { maxResourceLists, type ResourceList } from '../../../../src/k8s/resources.ts';
import { POD_TEMPLATE_TYPES, effectiveTemplates, isObject, templatePod, templateType } from './templates.ts';

type SchedulingField = 'nodeSelector' | 'tolerations' | 'affinity';
const SCHEDULING_FIELDS: SchedulingField[] = ['nodeSelector', 'tolerations', 'affinity'];

function isSet(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return value !== undefined && value !== null;
}

/**
 * One scheduling constraint for the whole workflow. Argo lets each template replace the workflow-level
 * value (template value when set, else the workflow's), so one node claim can only be exact when every
 * pod-creating template ends up with the same value; otherwise the workflow-level value is the claim.
 */
function workflowConstraint(field: SchedulingField, spec: Record<string, any>, podTemplates: Record<string, any>[]): unknown {
  const workflowValue = spec[field];
  if (podTemplates.length === 0) return workflowValue;
  const effective = podTemplates.map((template) => (isSet(template[field]) ? template[field] : workflowValue));
  return effective.every((value) => isDeepStrictEqual(value, effective[0])) ? effective[0] : workflowValue;
}

/**
 * replicas is always 1: a Workflow is one unit of work, and `spec.parallelism` is its internal fan-out
 * limit, not a count Karmada may divide (Karmada's built-in maps it to replicas and serializes workflows).
 * The requirement is the per-resource maximum over every pod-creating template (main containers and
 * sidecars summed, init containers sidecar-aware, podResources when set), the node claim as above, and
 * `spec.podPriorityClassName`.
 */
export function getReplicas(workflow: KObject): ReplicaResult {
  const spec: Record<string, any> = isObject(workflow.spec) ? workflow.spec : {};
  const podTemplates = effectiveTemplates(spec).filter((template) => {
    const type = templateType(template);
    return type !== undefined && POD_TEMPLATE_TYPES.has(type);
  });

  let resourceRequest: ResourceList = {};
  for (const template of podTemplates) {
    const request = podTemplateRequirements(templatePod(template, spec))?.resourceRequest;
    if (request) resourceRequest = maxResourceLists(resourceRequest, request);
  }

  const schedulingSpec: Record<string, any> = { containers: [] };
  for (const field of SCHEDULING_FIELDS) {
    const value = workflowConstraint(field, spec, podTemplates);
    if (isSet(value)) schedulingSpec[field] = value;
  }
  const nodeClaim = podTemplateRequirements({ metadata: {}, spec: schedulingSpec })?.nodeClaim;

  const requirements: ReplicaRequirements = {};
  if (nodeClaim && Object.keys(nodeClaim).length > 0) requirements.nodeClaim = nodeClaim;
  if (Object.keys(resourceRequest).length > 0) requirements.resourceRequest = resourceRequest;
  if (typeof spec.podPriorityClassName === 'string' && spec.podPriorityClassName !== '') {
    requirements.priorityClassName = spec.podPriorityClassName;
  }
  return Object.keys(requirements).length > 0 ? { replicas: 1, requirements } : { replicas: 1 };
}
