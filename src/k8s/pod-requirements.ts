// Per-replica ReplicaRequirements from a PodTemplateSpec (plain JSON object).
//
// karmadaPodRequirements ports Karmada's helper.GenerateReplicaRequirements (pkg/util/helper/binding.go)
// with util.Resource (pkg/util/resource.go): what `kube.accuratePodRequirements` returns.
// podTemplateRequirements is the variant our TypeScript modules report: Kubernetes' own effective-request
// rule (native sidecars, pod-level resources), plus priorityClassName.
//
// Both total resources the way Karmada's scheduler stores them: cpu as int64 milli-units (MilliValue,
// rounded up), every other resource as int64 units (Value, rounded up), and print them with
// NewMilliQuantity(DecimalSI) for cpu and NewQuantity(BinarySI) for memory/ephemeral-storage/hugepages,
// NewQuantity(DecimalSI) otherwise. karmadaPodRequirements keeps Go's int64 arithmetic exactly (a value
// too large for int64 becomes what Go's ScaledValue yields, sums wrap), so its output stays small;
// podTemplateRequirements sums exactly in BigInt, bounded by the quantity limits of quantity.ts.

import {
  InterpreterError,
  isJsonObject,
  type JsonObject,
  type KObject,
  type NodeClaim,
  type NodeSelector,
  type NodeSelectorRequirement,
  type NodeSelectorTerm,
  type ReplicaRequirements,
  type Toleration,
} from '../interpreter/types.ts';
import { Quantity, QuantityParseError, quoteForMessage } from './quantity.ts';
import { isHugePageResourceName, isScalarResourceName } from './resource-names.ts';

type Totals = Map<string, bigint>;

/** How totals are taken from quantities and added: Go's int64 (Karmada) or exact. */
interface Arithmetic {
  scaled(quantity: Quantity, scale: number): bigint;
  add(a: bigint, b: bigint): bigint;
}
/** util.Resource: int64 fields filled from Quantity.MilliValue/Value, `+=` wrapping on overflow. */
const GO_INT64: Arithmetic = {
  scaled: (quantity, scale) => quantity.scaledValueInt64(scale),
  add: (a, b) => BigInt.asIntN(64, a + b),
};
const EXACT: Arithmetic = {
  scaled: (quantity, scale) => quantity.scaledValueBigInt(scale),
  add: (a, b) => a + b,
};

const CPU = 'cpu';
const MEMORY = 'memory';
const EPHEMERAL_STORAGE = 'ephemeral-storage';
const PODS = 'pods';
const FIXED_ORDER = [CPU, MEMORY, EPHEMERAL_STORAGE, PODS];

function asArray(v: unknown): any[] {
  return Array.isArray(v) ? v : [];
}

function isTracked(name: string): boolean {
  return FIXED_ORDER.includes(name) || isScalarResourceName(name);
}

/** util.Resource.Add's view of one ResourceList: tracked names only, in scheduler units. */
function toTotals(list: unknown, path: string, arithmetic: Arithmetic): Totals {
  const totals: Totals = new Map();
  if (!isJsonObject(list)) return totals;
  for (const [name, raw] of Object.entries(list)) {
    if (raw === null || raw === undefined || !isTracked(name)) continue;
    let quantity: Quantity;
    try {
      if (typeof raw !== 'string' && typeof raw !== 'number') throw new QuantityParseError(raw, 'not a string or number');
      quantity = Quantity.parse(raw);
    } catch (err) {
      if (!(err instanceof QuantityParseError)) throw err;
      throw new InterpreterError(400, `${path}.${quoteResourceName(name)}: ${err.message}`);
    }
    totals.set(name, arithmetic.scaled(quantity, name === CPU ? -3 : 0));
  }
  return totals;
}

/** A resource name in an error message: as it is when short, else quoted and cut. */
function quoteResourceName(name: string): string {
  return name.length <= 64 ? name : quoteForMessage(name);
}

function addInto(target: Totals, source: Totals, arithmetic: Arithmetic): Totals {
  for (const [name, value] of source) target.set(name, arithmetic.add(target.get(name) ?? 0n, value));
  return target;
}

/** util.Resource.SetMaxResource: a missing entry counts as 0. */
function maxInto(target: Totals, source: Totals): Totals {
  for (const [name, value] of source) if (value > (target.get(name) ?? 0n)) target.set(name, value);
  return target;
}

/** util.Resource.ResourceList: positive totals only; undefined when nothing is left. */
function toResourceList(totals: Totals): Record<string, string> | undefined {
  const names = [...totals.keys()].sort((a, b) => {
    const rank = (n: string) => (FIXED_ORDER.includes(n) ? FIXED_ORDER.indexOf(n) : FIXED_ORDER.length);
    return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
  });
  const result: Record<string, string> = {};
  for (const name of names) {
    const value = totals.get(name)!;
    if (value <= 0n) continue;
    if (name === CPU) result[name] = Quantity.fromMilli(value, 'DecimalSI').toString();
    else if (name === MEMORY || name === EPHEMERAL_STORAGE || isHugePageResourceName(name)) {
      result[name] = Quantity.fromInt(value, 'BinarySI').toString();
    } else result[name] = Quantity.fromInt(value, 'DecimalSI').toString();
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

/**
 * Totals already taken from a pod-level `resources` object. One request can hand the same object to
 * many pod templates (an Argo Workflow's spec.podResources reaches every template); reading it once
 * keeps the work linear in the request. Request objects are not modified while they are read, and the
 * totals kept here are only ever read by the callers below.
 */
const podLevelTotals = new WeakMap<object, Totals>();

/** The pod-level requests (spec.resources), exact arithmetic, read once per object. */
function podLevelRequests(resources: JsonObject): Totals {
  const known = podLevelTotals.get(resources);
  if (known) return known;
  const totals = containerRequests({ resources }, 'spec', EXACT);
  podLevelTotals.set(resources, totals);
  return totals;
}

/** Kubernetes defaulting (SetDefaults_Pod, mirrored by AddPodTemplateRequest): a limit stands in for a missing request. */
function containerRequests(container: unknown, path: string, arithmetic: Arithmetic): Totals {
  if (!isJsonObject(container) || !isJsonObject(container.resources)) return new Map();
  const { requests, limits } = container.resources;
  const merged: Record<string, unknown> = {};
  if (isJsonObject(limits)) Object.assign(merged, limits);
  if (isJsonObject(requests)) {
    for (const [name, value] of Object.entries(requests)) if (value !== null && value !== undefined) merged[name] = value;
  }
  return toTotals(merged, `${path}.resources`, arithmetic);
}

function podSpecOf(podTemplateSpec: KObject | undefined): JsonObject {
  return isJsonObject(podTemplateSpec) && isJsonObject(podTemplateSpec.spec) ? podTemplateSpec.spec : {};
}

/** corev1.NodeSelectorRequirement as Go decodes and re-encodes it: key and operator always, string values. */
function nodeSelectorRequirement(value: unknown): NodeSelectorRequirement | undefined {
  if (!isJsonObject(value)) return undefined;
  const requirement: NodeSelectorRequirement = {
    key: typeof value.key === 'string' ? value.key : '',
    operator: typeof value.operator === 'string' ? value.operator : '',
  };
  const values = asArray(value.values).filter((v): v is string => typeof v === 'string');
  if (values.length > 0) requirement.values = values;
  return requirement;
}

function nodeSelectorRequirements(value: unknown): NodeSelectorRequirement[] {
  const out: NodeSelectorRequirement[] = [];
  for (const item of asArray(value)) {
    const requirement = nodeSelectorRequirement(item);
    if (requirement) out.push(requirement);
  }
  return out;
}

/** corev1.NodeSelectorTerm, typed: only matchExpressions and matchFields, empty lists left out. */
export function nodeSelectorTerm(value: unknown): NodeSelectorTerm {
  const term: NodeSelectorTerm = {};
  if (!isJsonObject(value)) return term;
  const matchExpressions = nodeSelectorRequirements(value.matchExpressions);
  const matchFields = nodeSelectorRequirements(value.matchFields);
  if (matchExpressions.length > 0) term.matchExpressions = matchExpressions;
  if (matchFields.length > 0) term.matchFields = matchFields;
  return term;
}

/**
 * corev1.NodeSelector (a required node affinity), typed the way Go decodes it: unknown fields and
 * values of the wrong type are dropped, so the copy is bounded by the schema's depth whatever the input.
 */
export function typedNodeSelector(value: JsonObject): NodeSelector {
  // Go encodes a nil nodeSelectorTerms as null, which reads as absent: leave the key out then.
  if (value.nodeSelectorTerms === undefined || value.nodeSelectorTerms === null) return {} as NodeSelector;
  return { nodeSelectorTerms: asArray(value.nodeSelectorTerms).map(nodeSelectorTerm) };
}

/** corev1.Toleration, typed: string fields when non-empty (omitempty), an integer tolerationSeconds. */
export function typedToleration(value: unknown): Toleration | undefined {
  if (!isJsonObject(value)) return undefined;
  const toleration: Toleration = {};
  for (const field of ['key', 'operator', 'value', 'effect'] as const) {
    if (typeof value[field] === 'string' && value[field] !== '') toleration[field] = value[field];
  }
  if (Number.isInteger(value.tolerationSeconds)) toleration.tolerationSeconds = value.tolerationSeconds;
  return toleration;
}

export function typedTolerations(value: unknown): Toleration[] {
  const out: Toleration[] = [];
  for (const item of asArray(value)) {
    const toleration = typedToleration(item);
    if (toleration) out.push(toleration);
  }
  return out;
}

/** A nodeSelector map, typed: string values only (Go's map[string]string). */
export function typedNodeSelectorMap(value: JsonObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, label] of Object.entries(value)) if (typeof label === 'string') out[key] = label;
  return out;
}

/** helper.GenerateNodeClaimByPodSpec, as its JSON (omitempty) would read; undefined when Go returns nil. */
function karmadaNodeClaim(spec: JsonObject): NodeClaim | undefined {
  const nodeSelector = isJsonObject(spec.nodeSelector) ? typedNodeSelectorMap(spec.nodeSelector) : undefined;
  const tolerations = typedTolerations(spec.tolerations);
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const hardNodeAffinity = isJsonObject(required) ? typedNodeSelector(required) : undefined;
  // Go tests `NodeSelector == nil`: an explicit empty map still yields a (JSON-empty) claim.
  if (nodeSelector === undefined && hardNodeAffinity === undefined && tolerations.length === 0) return undefined;
  const claim: NodeClaim = {};
  if (hardNodeAffinity) claim.hardNodeAffinity = hardNodeAffinity;
  if (nodeSelector && Object.keys(nodeSelector).length > 0) claim.nodeSelector = nodeSelector;
  if (tolerations.length > 0) claim.tolerations = tolerations;
  return claim;
}

/** Our node claim: the same three sources, empty parts left out, undefined when nothing remains. */
function nodeClaimOf(spec: JsonObject): NodeClaim | undefined {
  const claim = karmadaNodeClaim(spec);
  return claim && Object.keys(claim).length > 0 ? claim : undefined;
}

/**
 * Exactly Karmada's helper.GenerateReplicaRequirements (ResourceQuotaEstimate gate off, its default):
 * requests = sum of containers (limits fill missing requests), per resource max against each init
 * container (native sidecars are treated as ordinary init containers), plus spec.overhead; nodeClaim from
 * nodeSelector / tolerations / required node affinity. No namespace or priorityClassName.
 * Undefined when there is neither a node claim nor a positive request.
 * Throws InterpreterError(400) for an invalid quantity (Karmada fails decoding the template).
 */
export function karmadaPodRequirements(podTemplateSpec: KObject | undefined): ReplicaRequirements | undefined {
  const spec = podSpecOf(podTemplateSpec);
  const totals: Totals = new Map();
  const go = GO_INT64;
  asArray(spec.containers).forEach((c, i) => addInto(totals, containerRequests(c, `spec.containers[${i}]`, go), go));
  asArray(spec.initContainers).forEach((c, i) => maxInto(totals, containerRequests(c, `spec.initContainers[${i}]`, go)));
  if (isJsonObject(spec.overhead)) addInto(totals, toTotals(spec.overhead, 'spec.overhead', go), go);

  const nodeClaim = karmadaNodeClaim(spec);
  const resourceRequest = toResourceList(totals);
  if (nodeClaim === undefined && resourceRequest === undefined) return undefined;
  const requirements: ReplicaRequirements = {};
  if (nodeClaim) requirements.nodeClaim = nodeClaim;
  if (resourceRequest) requirements.resourceRequest = resourceRequest;
  return requirements;
}

/** Pod-level resources Kubernetes honours (IsSupportedPodLevelResource). */
function isPodLevelResource(name: string): boolean {
  return name === CPU || name === MEMORY || isHugePageResourceName(name);
}

/**
 * Kubernetes' effective pod request (k8s.io/component-helpers/resource PodRequests):
 * - app containers are summed; a restartable init container (restartPolicy: Always, a native sidecar)
 *   runs alongside them, so it is added to that sum;
 * - an ordinary init container runs next to the sidecars started before it: its request plus theirs;
 * - the pod needs the per-resource max of the steady state and every init step;
 * - pod-level spec.resources (requests, else limits, per resource) replace the container total;
 * - spec.overhead is added last.
 */
function podEffectiveRequests(spec: JsonObject): Totals {
  const exact = EXACT;
  const steady: Totals = new Map();
  asArray(spec.containers).forEach((c, i) => addInto(steady, containerRequests(c, `spec.containers[${i}]`, exact), exact));

  const sidecars: Totals = new Map();
  const initPeak: Totals = new Map();
  asArray(spec.initContainers).forEach((c, i) => {
    const request = containerRequests(c, `spec.initContainers[${i}]`, exact);
    if (isJsonObject(c) && c.restartPolicy === 'Always') {
      addInto(steady, request, exact);
      addInto(sidecars, request, exact);
      maxInto(initPeak, sidecars);
    } else {
      maxInto(initPeak, addInto(new Map(sidecars), request, exact));
    }
  });
  maxInto(steady, initPeak);

  if (isJsonObject(spec.resources)) {
    const podLevel = podLevelRequests(spec.resources);
    for (const [name, value] of podLevel) if (isPodLevelResource(name)) steady.set(name, value);
  }
  if (isJsonObject(spec.overhead)) addInto(steady, toTotals(spec.overhead, 'spec.overhead', exact), exact);
  return steady;
}

/**
 * The requirement our TypeScript modules report: Kubernetes' effective request
 * (see podEffectiveRequests), the node claim (empty parts omitted), priorityClassName when set and
 * `namespace` when given. Undefined when there is neither a node claim nor a positive request
 * (a priority class alone is not reported, as in Karmada). Throws InterpreterError(400) on an invalid quantity.
 */
export function podTemplateRequirements(podTemplateSpec: KObject | undefined, opts: { namespace?: string } = {}): ReplicaRequirements | undefined {
  const spec = podSpecOf(podTemplateSpec);
  const nodeClaim = nodeClaimOf(spec);
  const resourceRequest = toResourceList(podEffectiveRequests(spec));
  if (nodeClaim === undefined && resourceRequest === undefined) return undefined;
  const requirements: ReplicaRequirements = {};
  if (nodeClaim) requirements.nodeClaim = nodeClaim;
  if (resourceRequest) requirements.resourceRequest = resourceRequest;
  if (opts.namespace) requirements.namespace = opts.namespace;
  if (typeof spec.priorityClassName === 'string' && spec.priorityClassName !== '') {
    requirements.priorityClassName = spec.priorityClassName;
  }
  return requirements;
}
