// Tolerant readers for fields of plain JSON objects. Interpreters see whatever the API server (or a
// user's template) holds, so a missing or mistyped field reads as its Kubernetes zero value instead of
// throwing.
import { InterpreterError, isJsonObject, type JsonObject, type KObject, type ReplicaResult } from '../../../src/interpreter/types.ts';
import { podTemplateRequirements } from '../../../src/k8s/pod-requirements.ts';

/** An integer field, 0 when absent or not an integer (Go's zero value for an omitted int32). */
export const intOr0 = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) ? v : 0);

/** A string field, "" when absent. */
export const stringOrEmpty = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The object at `obj[key]`, created (and attached) when missing or not an object. */
export function ensureObject(obj: JsonObject, key: string): JsonObject {
  if (!isJsonObject(obj[key])) obj[key] = {};
  return obj[key] as JsonObject;
}

/**
 * spec.replicas with Kruise's default of 1 when omitted (the Kruise webhook defaults it in members;
 * on the Karmada control plane nothing does). A non-integer is a broken template: answer 400 rather
 * than guess.
 */
export function specReplicas(obj: KObject): number {
  const value = isJsonObject(obj.spec) ? obj.spec.replicas : undefined;
  if (value === undefined || value === null) return 1;
  // int32 in the Kruise API: a larger value would be rejected by the member API server anyway.
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 2147483647) return value;
  const shown = typeof value === 'number' ? String(value) : JSON.stringify(value);
  throw new InterpreterError(400, `spec.replicas must be an integer from 0 to 2147483647, got ${shown}`);
}

/** spec, or {} when absent or not an object. */
export const specOf = (obj: KObject): JsonObject => (isJsonObject(obj.spec) ? obj.spec : {});

/** InterpretReplica for a workload with spec.replicas and a pod template at spec.template. */
export function templateReplicas(obj: KObject): ReplicaResult {
  const replicas = specReplicas(obj);
  const template = specOf(obj).template;
  const requirements = isJsonObject(template) ? podTemplateRequirements(template) : undefined;
  return requirements === undefined ? { replicas } : { replicas, requirements };
}

export const annotationsOf = (obj: KObject): Record<string, unknown> =>
  isJsonObject(obj.metadata) && isJsonObject(obj.metadata.annotations) ? obj.metadata.annotations : {};

export const labelsOf = (obj: KObject): Record<string, unknown> => (isJsonObject(obj.metadata) && isJsonObject(obj.metadata.labels) ? obj.metadata.labels : {});
