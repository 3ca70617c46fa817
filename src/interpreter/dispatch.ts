// The one wrapper around every interpreter call, shared by the server and the CLI: find the
// implementation, hand it its inputs (a private copy of what it may change), validate what comes back,
// and turn every failure into a status code and message Karmada can log.
import { dependencyBoundProblem } from './answer-limits.ts';
import { copyJson } from './copy.ts';
import type { LayerName, Registry } from './registry.ts';
import {
  InterpreterError,
  OPERATIONS,
  type AggregatedStatusItem,
  type Component,
  type DependentObjectReference,
  type KObject,
  type Operation,
  type ReplicaRequirements,
} from './types.ts';
import { componentsProblem, dependenciesProblem, objectProblem, replicasProblem, requirementsProblem, statusProblem } from './validate.ts';

export interface InterpretInput {
  apiVersion: string;
  kind: string;
  operation: string;
  object: KObject;
  observedObject?: KObject;
  replicas?: number;
  aggregatedStatus?: AggregatedStatusItem[];
}

export type InterpretResult =
  | { operation: 'InterpretReplica'; replicas: number; requirements?: ReplicaRequirements }
  | { operation: 'InterpretComponent'; components: Component[] }
  | { operation: 'ReviseReplica' | 'Retain' | 'AggregateStatus'; object: KObject }
  | { operation: 'InterpretStatus'; status: Record<string, unknown> }
  | { operation: 'InterpretHealth'; healthy: boolean }
  | { operation: 'InterpretDependency'; dependencies: DependentObjectReference[] };

export type InterpretOutcome =
  | { ok: true; result: InterpretResult; implementation: string; layer: LayerName }
  | { ok: false; code: number; message: string; implementation?: string; cause?: unknown; reason?: 'timeout' };

const isOperation = (op: string): op is Operation => (OPERATIONS as readonly string[]).includes(op);

export async function interpret(registry: Registry, input: InterpretInput): Promise<InterpretOutcome> {
  const { apiVersion, kind, operation } = input;
  if (!isOperation(operation)) {
    if (operation === 'Prune') return fail(501, 'operation Prune is defined by Karmada but never called; it is not implemented');
    return fail(
      400,
      `invalid ResourceInterpreterContext: request.operation ${JSON.stringify(operation)} is not a Karmada interpreter operation (${OPERATIONS.join(', ')})`,
    );
  }
  const failure = registry.failureFor(apiVersion, kind, operation);
  if (failure) {
    const name = failure.customization ?? '(unnamed)';
    return fail(500, `customization ${name} failed to load: ${failure.file} document ${failure.document}: ${failure.message}`);
  }
  if (!registry.serves(apiVersion, kind)) {
    const served = registry.served().map((s) => `${s.apiVersion} ${s.kind}`);
    const example = registry.disabledExample(apiVersion, kind);
    const hint = example ? `; a shipped example serves it when enabled (--examples ${example})` : '';
    return fail(404, `${apiVersion} ${kind} is not served by this interpreter${hint}; served kinds: ${served.join(', ') || 'none'}`);
  }
  const resolved = registry.resolve(apiVersion, kind, operation);
  if (!resolved) {
    const ops = registry.served().find((s) => s.apiVersion === apiVersion && s.kind === kind)?.operations ?? [];
    return fail(501, `${operation} is not implemented for ${apiVersion} ${kind}; implemented: ${ops.join(', ')}`);
  }
  const implementation = resolved.interpreter.name ?? `${resolved.layer}:${kind}`;
  const inputProblem = checkInput(operation, input);
  if (inputProblem) return { ...fail(400, inputProblem), implementation };
  try {
    const result = await call(resolved.interpreter, operation, input);
    const problem = resultProblem(result);
    if (problem) {
      return { ...fail(500, `interpreter ${implementation} returned an invalid ${operation} result: ${problem}`), implementation };
    }
    return { ok: true, result, implementation, layer: resolved.layer };
  } catch (error) {
    if (error instanceof InterpreterError) return { ...fail(error.code, error.message), implementation, reason: error.reason };
    return {
      ...fail(500, `internal error in interpreter ${implementation} during ${operation}; details are in the server log`),
      implementation,
      cause: error,
    };
  }
}

function fail(code: number, message: string): { ok: false; code: number; message: string } {
  return { ok: false, code, message };
}

function checkInput(operation: Operation, input: InterpretInput): string | undefined {
  if (operation === 'Retain' && (typeof input.observedObject !== 'object' || input.observedObject === null)) {
    return 'Retain needs request.observedObject (the object in the member cluster)';
  }
  if (operation === 'ReviseReplica') {
    const r = input.replicas;
    if (typeof r !== 'number' || !Number.isInteger(r) || r < 0) return `ReviseReplica needs request.replicas >= 0, got ${quoted(r)}`;
  }
  return undefined;
}

// The operations that return an object get a private copy of what they may change: modules build their
// answer by changing it, and the request's object must stay intact for the diff. ReviseReplica and
// Retain get a deep copy. AggregateStatus may change only `status`: it gets a new top level with a deep
// copy of `status` and shares the rest with the request, and the diff skips the shared parts by
// identity (patch.ts) instead of walking them. Everything else (the object of a read-only operation,
// Retain's observed object, the status items) is the request's own data, passed as is: modules only
// read it (test/interpreter/readonly-inputs.test.ts runs every module on deep-frozen inputs).
function withOwnCopyOf(object: KObject, field: 'status'): KObject {
  const copy: KObject = { ...object };
  if (object[field] !== undefined) copy[field] = copyJson(object[field]);
  return copy;
}

async function call(m: import('./types.ts').KindInterpreter, operation: Operation, input: InterpretInput): Promise<InterpretResult> {
  const object = input.object;
  switch (operation) {
    case 'InterpretReplica': {
      const r = await m.getReplicas!(object);
      return { operation, replicas: r?.replicas, requirements: r?.requirements };
    }
    case 'InterpretComponent':
      return { operation, components: await m.getComponents!(object) };
    case 'ReviseReplica':
      return { operation, object: await m.reviseReplica!(copyJson(object), input.replicas!) };
    case 'Retain':
      return { operation, object: await m.retain!(copyJson(object), input.observedObject!) };
    case 'AggregateStatus':
      return { operation, object: await m.aggregateStatus!(withOwnCopyOf(object, 'status'), input.aggregatedStatus) };
    case 'InterpretStatus':
      return { operation, status: await m.reflectStatus!(object) };
    case 'InterpretHealth':
      return { operation, healthy: await m.interpretHealth!(object) };
    case 'InterpretDependency':
      return { operation, dependencies: await m.getDependencies!(object) };
  }
}

function resultProblem(result: InterpretResult): string | undefined {
  switch (result.operation) {
    case 'InterpretReplica':
      return replicasProblem(result.replicas) ?? requirementsProblem(result.requirements);
    case 'InterpretComponent':
      return componentsProblem(result.components);
    case 'ReviseReplica':
    case 'Retain':
    case 'AggregateStatus':
      return objectProblem(result.object);
    case 'InterpretStatus':
      return statusProblem(result.status);
    case 'InterpretHealth':
      return typeof result.healthy === 'boolean' ? undefined : `healthy must be a boolean, got ${quoted(result.healthy)}`;
    case 'InterpretDependency':
      // The merged answer of several customizations is bounded as it is merged; this bounds every layer's.
      return (Array.isArray(result.dependencies) && dependencyBoundProblem(result.dependencies.length, 0)) || dependenciesProblem(result.dependencies);
  }
}

/** A value named in a message, in a few dozen characters (the request or a module chose it): never a whole object's JSON. */
function quoted(value: unknown): string {
  if (typeof value === 'string') return value.length <= 64 ? JSON.stringify(value) : `${JSON.stringify(value.slice(0, 64))}… (${value.length} characters)`;
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object' && value !== null) return 'an object';
  return String(value);
}
