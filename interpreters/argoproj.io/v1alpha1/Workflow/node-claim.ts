// One node claim for every pod a Workflow can create. Karmada checks a claim against single nodes
// (the scheduler estimator counts the nodes that match nodeSelector and required node affinity and
// whose taints the tolerations tolerate), but a Workflow's pods may each carry different constraints.
//
// The rule, chosen so the claim never under-claims: every node requirement any pod has is in the claim.
// nodeSelector entries and required node affinities of all pods are ANDed — a node that satisfies the
// claim satisfies the requirements of every pod — and the tolerations of all pods are combined (a
// toleration permits a taint, it requires nothing; leaving out the GPU pod's toleration would reject the
// tainted GPU nodes that pod needs). When pods need different nodes (nodeSelector gpu=a100 and
// gpu=h100, or two disjoint pools) no single node satisfies the claim, and a cluster passes Karmada's
// estimator only if it really has such a node; that is the price of never placing a workflow where one
// of its pods cannot run.
import {
  isJsonObject,
  type JsonObject,
  type NodeClaim,
  type NodeSelectorRequirement,
  type NodeSelectorTerm,
  type Toleration,
} from '../../../../src/interpreter/types.ts';
import { typedNodeSelector, typedNodeSelectorMap, typedTolerations } from '../../../../src/k8s/pod-requirements.ts';
import type { WorkBudget } from '../../../shared/work-budget.ts';

/** The scheduling constraints one pod ends up with (each the object Argo would put on the pod, or absent). */
export interface PodConstraints {
  nodeSelector?: JsonObject;
  affinity?: JsonObject;
  tolerations?: unknown[];
}

/**
 * How many terms the ANDed required node affinity may have. The AND of selectors with several terms
 * each is the cross product of their terms; past this many, only the first combinations are kept. Each
 * kept term implies the whole AND, so the claim only gets stricter, never weaker.
 */
export const MAX_AFFINITY_TERMS = 64;

const WHAT = 'combining the scheduling constraints of the workflow pods';

function requirementKey(r: NodeSelectorRequirement): string {
  return JSON.stringify([r.key, r.operator, r.values ?? []]);
}

function termKey(term: NodeSelectorTerm): string {
  return JSON.stringify([(term.matchExpressions ?? []).map(requirementKey), (term.matchFields ?? []).map(requirementKey)]);
}

function tolerationKey(t: Toleration): string {
  return JSON.stringify([t.key ?? '', t.operator ?? '', t.value ?? '', t.effect ?? '', t.tolerationSeconds ?? null]);
}

const isEmptyTerm = (term: NodeSelectorTerm): boolean => !term.matchExpressions && !term.matchFields;

/** term ∧ term: the requirements of both (a term is the AND of its requirements). */
function andTerms(terms: NodeSelectorTerm[]): NodeSelectorTerm {
  const matchExpressions: NodeSelectorRequirement[] = [];
  const matchFields: NodeSelectorRequirement[] = [];
  for (const term of terms) {
    for (const r of term.matchExpressions ?? []) matchExpressions.push(r);
    for (const r of term.matchFields ?? []) matchFields.push(r);
  }
  const out: NodeSelectorTerm = {};
  if (matchExpressions.length > 0) out.matchExpressions = matchExpressions;
  if (matchFields.length > 0) out.matchFields = matchFields;
  return out;
}

/**
 * The AND of several node selectors (each an OR of terms) as one OR of terms: the cross product, in
 * odometer order, cut at MAX_AFFINITY_TERMS. A term without requirements matches no node (Kubernetes'
 * nodeaffinity), so it is dropped; a selector left without terms makes the AND match nothing ([]).
 */
function andSelectors(selectors: NodeSelectorTerm[][], budget: WorkBudget): NodeSelectorTerm[] {
  const options = selectors.map((terms) => terms.filter((term) => !isEmptyTerm(term)));
  if (options.some((terms) => terms.length === 0)) return [];
  const combined: NodeSelectorTerm[] = [];
  const digits = options.map(() => 0);
  while (combined.length < MAX_AFFINITY_TERMS) {
    budget.charge(options.length, WHAT);
    combined.push(andTerms(options.map((terms, i) => terms[digits[i]!]!)));
    // Advance the odometer: the last selector's term changes fastest.
    let position = options.length - 1;
    for (; position >= 0; position--) {
      digits[position] = digits[position]! + 1;
      if (digits[position]! < options[position]!.length) break;
      digits[position] = 0;
    }
    if (position < 0) break;
  }
  return combined;
}

export function conjunctionClaim(pods: readonly PodConstraints[], budget: WorkBudget): NodeClaim | undefined {
  // nodeSelector: key → every value some pod requires for it.
  const labelValues = new Map<string, string[]>();
  const seenSelectors = new Set<object>();
  // Required node affinities, each distinct one once, in first-seen order.
  const affinities = new Map<string, { selector: NodeClaim['hardNodeAffinity']; terms: NodeSelectorTerm[] }>();
  const seenAffinities = new Set<object>();
  const tolerations = new Map<string, Toleration>();
  const seenTolerations = new Set<object>();

  for (const pod of pods) {
    if (pod.nodeSelector && !seenSelectors.has(pod.nodeSelector)) {
      seenSelectors.add(pod.nodeSelector);
      const labels = typedNodeSelectorMap(pod.nodeSelector);
      budget.charge(Object.keys(labels).length + 1, WHAT);
      for (const [key, value] of Object.entries(labels)) {
        const values = labelValues.get(key);
        if (!values) labelValues.set(key, [value]);
        else if (!values.includes(value)) values.push(value);
      }
    }
    const required = pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (isJsonObject(required) && !seenAffinities.has(required)) {
      seenAffinities.add(required);
      const selector = typedNodeSelector(required);
      const terms = selector.nodeSelectorTerms ?? [];
      budget.charge(terms.length + 1, WHAT);
      const key = JSON.stringify(terms.map(termKey));
      if (!affinities.has(key)) affinities.set(key, { selector, terms });
    }
    if (pod.tolerations && !seenTolerations.has(pod.tolerations)) {
      seenTolerations.add(pod.tolerations);
      const list = typedTolerations(pod.tolerations);
      budget.charge(list.length + 1, WHAT);
      for (const toleration of list) {
        const key = tolerationKey(toleration);
        if (!tolerations.has(key)) tolerations.set(key, toleration);
      }
    }
  }

  // A label two pods require with different values: no nodeSelector map can say both, so each value
  // becomes a requirement of every affinity term (which no single node meets, as no single node can run
  // both pods' constraints).
  const nodeSelector: Record<string, string> = {};
  const conflicts: NodeSelectorRequirement[] = [];
  for (const [key, values] of labelValues) {
    if (values.length === 1) nodeSelector[key] = values[0]!;
    else for (const value of values) conflicts.push({ key, operator: 'In', values: [value] });
  }

  let hardNodeAffinity: NodeClaim['hardNodeAffinity'];
  const distinct = [...affinities.values()];
  if (distinct.length === 1 && conflicts.length === 0) {
    hardNodeAffinity = distinct[0]!.selector;
  } else if (distinct.length > 0 || conflicts.length > 0) {
    const selectors = distinct.map((a) => a.terms);
    if (conflicts.length > 0) selectors.push([{ matchExpressions: conflicts }]);
    hardNodeAffinity = { nodeSelectorTerms: andSelectors(selectors, budget) };
  }

  const claim: NodeClaim = {};
  if (hardNodeAffinity) claim.hardNodeAffinity = hardNodeAffinity;
  if (Object.keys(nodeSelector).length > 0) claim.nodeSelector = nodeSelector;
  if (tolerations.size > 0) claim.tolerations = [...tolerations.values()];
  return Object.keys(claim).length > 0 ? claim : undefined;
}
