// Checks what an interpreter returned before it reaches Karmada. A module bug must become a clear
// 500 from us, not a response Karmada rejects later with a confusing decode or verification error.
import type { Component, DependentObjectReference, KObject, ReplicaRequirements } from './types.ts';

const INT32_MAX = 2147483647;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function replicasProblem(replicas: unknown): string | undefined {
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) return `replicas must be an integer, got ${JSON.stringify(replicas)}`;
  if (replicas < 0 || replicas > INT32_MAX) return `replicas must be within 0..${INT32_MAX}, got ${replicas}`;
  return undefined;
}

export function requirementsProblem(req: ReplicaRequirements | undefined): string | undefined {
  if (req === undefined) return undefined;
  if (!isPlainObject(req)) return 'replicaRequirements must be an object';
  for (const [name, value] of Object.entries(req.resourceRequest ?? {})) {
    if (typeof value !== 'string' || value === '') return `replicaRequirements.resourceRequest.${name} must be a quantity string`;
  }
  return undefined;
}

export function objectProblem(obj: unknown): string | undefined {
  if (!isPlainObject(obj)) return 'the returned object must be a JSON object';
  if (typeof (obj as KObject).kind !== 'string' || (obj as KObject).kind === '') return "the returned object has no 'kind'";
  return undefined;
}

export function statusProblem(status: unknown): string | undefined {
  return isPlainObject(status) ? undefined : 'the reflected status must be a JSON object';
}

export function componentsProblem(components: unknown): string | undefined {
  if (!Array.isArray(components)) return 'components must be a list';
  const seen = new Set<string>();
  for (const [i, c] of (components as Component[]).entries()) {
    if (!isPlainObject(c) || typeof c.name !== 'string' || c.name === '') return `components[${i}].name must be a non-empty string`;
    if (c.name.length > 32) return `components[${i}].name must be at most 32 characters`;
    if (seen.has(c.name)) return `components[${i}].name ${JSON.stringify(c.name)} is not unique`;
    seen.add(c.name);
    const replicas = replicasProblem(c.replicas);
    if (replicas) return `components[${i}].${replicas}`;
    const req = requirementsProblem(c.replicaRequirements);
    if (req) return `components[${i}].${req}`;
  }
  return undefined;
}

/** Mirrors Karmada's VerifyDependencies: apiVersion, kind, and name or labelSelector. */
export function dependenciesProblem(deps: unknown): string | undefined {
  if (!Array.isArray(deps)) return 'dependencies must be a list';
  for (const [i, d] of (deps as DependentObjectReference[]).entries()) {
    if (!isPlainObject(d)) return `dependencies[${i}] must be an object`;
    if (typeof d.apiVersion !== 'string' || d.apiVersion === '') return `dependencies[${i}].apiVersion must not be empty`;
    if (typeof d.kind !== 'string' || d.kind === '') return `dependencies[${i}].kind must not be empty`;
    const hasName = typeof d.name === 'string' && d.name !== '';
    if (!hasName && !isPlainObject(d.labelSelector)) return `dependencies[${i}] needs a name or a labelSelector`;
  }
  return undefined;
}
