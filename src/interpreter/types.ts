// The contract between the dispatcher and every interpreter (TypeScript module or Lua customization).
// Modules are pure: plain JSON-shaped objects in, plain objects out. They never see HTTP, base64 or
// patches; the dispatcher (src/interpreter/dispatch.ts) owns copying, validation, diffing and errors.

/** A JSON object as decoded: a Kubernetes object or any object inside one (a spec, a status, a container). */
export type JsonObject = Record<string, any>;

/** A Kubernetes object as decoded from JSON (apiVersion, kind, metadata, spec, status, ...). */
export type KObject = JsonObject;

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Karmada InterpreterOperation names, as they appear on the wire (config.karmada.io/v1alpha1). */
export const OPERATIONS = [
  'InterpretReplica',
  'InterpretComponent',
  'ReviseReplica',
  'Retain',
  'AggregateStatus',
  'InterpretStatus',
  'InterpretHealth',
  'InterpretDependency',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** corev1.NodeSelectorRequirement / NodeSelector / Toleration, as JSON. */
export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}
export interface NodeSelector {
  nodeSelectorTerms: NodeSelectorTerm[];
}
export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** work/v1alpha2 NodeClaim. */
export interface NodeClaim {
  hardNodeAffinity?: NodeSelector;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
}

/** work/v1alpha2 ReplicaRequirements. Quantities are canonical Kubernetes strings ("100m", "1Gi"). */
export interface ReplicaRequirements {
  nodeClaim?: NodeClaim;
  resourceRequest?: Record<string, string>;
  namespace?: string;
  priorityClassName?: string;
}

/** work/v1alpha2 Component (InterpretComponent). */
export interface Component {
  name: string;
  replicas: number;
  replicaRequirements?: Omit<ReplicaRequirements, 'namespace'>;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | string;
  values?: string[];
}
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** config/v1alpha1 DependentObjectReference (InterpretDependency). */
export interface DependentObjectReference {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  labelSelector?: LabelSelector;
}

/** work/v1alpha2 AggregatedStatusItem (AggregateStatus input). `applied` is omitted when false. */
export interface AggregatedStatusItem {
  clusterName: string;
  status?: JsonObject;
  applied?: boolean;
  appliedMessage?: string;
  health?: 'Healthy' | 'Unhealthy' | 'Unknown' | string;
}

/** policy/v1alpha1 StatePreservationRule. */
export interface StatePreservationRule {
  aliasLabelName: string;
  jsonPath: string;
}

export interface ReplicaResult {
  replicas: number;
  requirements?: ReplicaRequirements;
}

/** Calls may be synchronous (TypeScript modules) or asynchronous (Lua in a worker, if used). */
export type MaybePromise<T> = T | Promise<T>;

/**
 * One object per kind. Every operation is optional; names follow Karmada's Lua functions so a
 * TypeScript module and a Lua customization have the same shape. The object of `reviseReplica` and
 * `retain` (`desired`) is a private deep copy: a module may change anything in it and return it.
 * `aggregateStatus` may change only the object's `status` (a private copy: change it in place or set a
 * new one); below its other fields lies the request's own data.
 * Every other input (the object of the read-only operations, `observed`, `items`) is the request's own
 * data: read it, never change it (inputs may be frozen; test/interpreter/readonly-inputs.test.ts).
 *
 * `aggregateStatus` receives `items` exactly as Karmada sent them: `undefined` when the request had no
 * `aggregatedStatus` (Karmada omits an empty list), otherwise the list (possibly empty).
 */
export interface KindInterpreter {
  /** Human-readable origin, used in error messages and /readyz ("typescript:CloneSet", "lua:my-ric"). */
  name?: string;
  targets: ReadonlyArray<{ apiVersion: string; kind: string }>;
  getReplicas?(obj: KObject): MaybePromise<ReplicaResult>;
  getComponents?(obj: KObject): MaybePromise<Component[]>;
  reviseReplica?(obj: KObject, replicas: number): MaybePromise<KObject>;
  retain?(desired: KObject, observed: KObject): MaybePromise<KObject>;
  aggregateStatus?(obj: KObject, items: AggregatedStatusItem[] | undefined): MaybePromise<KObject>;
  reflectStatus?(observed: KObject): MaybePromise<JsonObject>;
  interpretHealth?(observed: KObject): MaybePromise<boolean>;
  getDependencies?(obj: KObject): MaybePromise<DependentObjectReference[]>;
  /** Recommended state-preservation rules, for docs, tests and the `preserve` CLI. */
  preservation?: StatePreservationRule[];
}

/** The module method that implements each operation. */
export const OPERATION_METHOD: Record<Operation, keyof KindInterpreter> = {
  InterpretReplica: 'getReplicas',
  InterpretComponent: 'getComponents',
  ReviseReplica: 'reviseReplica',
  Retain: 'retain',
  AggregateStatus: 'aggregateStatus',
  InterpretStatus: 'reflectStatus',
  InterpretHealth: 'interpretHealth',
  InterpretDependency: 'getDependencies',
};

/**
 * An error a module throws on purpose, with the status code Karmada should see, e.g. a ReviseReplica
 * that would produce a manifest the member API server rejects (400). Any other thrown error is a bug
 * and answers 500 with a generic message.
 */
export class InterpreterError extends Error {
  readonly code: number;
  /** Why, for metrics: 'timeout' when a script ran out of time. */
  readonly reason?: 'timeout';

  constructor(code: number, message: string, reason?: 'timeout') {
    super(message);
    this.code = code;
    this.reason = reason;
    this.name = 'InterpreterError';
  }
}
