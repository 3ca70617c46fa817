// Workflow InterpretReplica scheduling constraints against Argo's own rule
// (argoproj/argo-workflows workflow/controller/workflowpod.go `addSchedulingConstraints`): a pod takes
// its template's nodeSelector / affinity / tolerations, else its boundary's (the steps or DAG template
// that called it), else the workflow's; priorityClassName is the template's, else podPriorityClassName.
// The claim must never under-claim: every requirement any pod carries is in it. Also the hostile shapes
// a request can take (cycles, deep nesting, a huge templateDefaults, many alternatives): bounded, and
// still answered correctly or refused with a 400.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_AFFINITY_TERMS } from '../../interpreters/argoproj.io/v1alpha1/Workflow/node-claim.ts';
import { getReplicas } from '../../interpreters/argoproj.io/v1alpha1/Workflow/requirements.ts';
import { InterpreterError, type JsonObject, type NodeClaim, type NodeSelectorRequirement, type NodeSelectorTerm } from '../../src/interpreter/types.ts';

function workflow(spec: JsonObject): JsonObject {
  return { apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', metadata: { name: 'w', namespace: 'ci' }, spec };
}

const term = (key: string, values: string[]): NodeSelectorTerm => ({ matchExpressions: [{ key, operator: 'In', values }] });
const required = (...terms: NodeSelectorTerm[]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });

const NODE_SELECTORS = [undefined, {}, { gpu: 'a100' }, { gpu: 'h100' }, { pool: 'batch' }, { pool: 'batch', disk: 'ssd' }];
const AFFINITIES = [undefined, {}, required(term('zone', ['a'])), required(term('zone', ['b']), term('zone', ['c'])), required(term('arch', ['arm64']))];
const TOLERATIONS = [undefined, [], [{ key: 'gpu', operator: 'Exists' }], [{ key: 'batch', operator: 'Exists', effect: 'NoSchedule' }]];

const constraintsArbitrary = fc.record({
  nodeSelector: fc.constantFrom(...NODE_SELECTORS),
  affinity: fc.constantFrom(...AFFINITIES),
  tolerations: fc.constantFrom(...TOLERATIONS),
});

/** Drops undefined values so the template is what a YAML/JSON object would be. */
function defined(object: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));
}

/**
 * Random acyclic workflows: pod templates p0..pN and steps/DAG templates g0..gM, where gi calls pod
 * templates and later g templates, entrypoint g0.
 */
const workflowArbitrary = fc
  .record({
    pods: fc.array(constraintsArbitrary, { minLength: 1, maxLength: 4 }),
    groups: fc.array(fc.record({ constraints: constraintsArbitrary, dag: fc.boolean(), calls: fc.array(fc.nat(20), { maxLength: 4 }) }), {
      minLength: 1,
      maxLength: 4,
    }),
    workflowLevel: constraintsArbitrary,
  })
  .map(({ pods, groups, workflowLevel }) => {
    const templates: JsonObject[] = pods.map((c, i) => defined({ name: `p${i}`, ...c, container: { image: 'busybox' } }));
    groups.forEach((group, i) => {
      const callable = [...pods.map((_, j) => `p${j}`), ...groups.map((_, j) => `g${j}`).slice(i + 1)];
      const names = group.calls.map((n) => callable[n % callable.length]!);
      const steps = names.map((name, k) => ({ name: `s${k}`, template: name }));
      templates.push(defined({ name: `g${i}`, ...group.constraints, ...(group.dag ? { dag: { tasks: steps } } : { steps: [steps] }) }));
    });
    return defined({ entrypoint: 'g0', templates, ...workflowLevel });
  });

/** Reference model of addSchedulingConstraints over the template graph (recursive: test inputs are small and acyclic). */
function referencePods(spec: JsonObject): JsonObject[] {
  const byName = new Map<string, JsonObject>(spec.templates.map((t: JsonObject) => [t.name, t]));
  const pods: JsonObject[] = [];
  const nonEmpty = (v: unknown) => (Array.isArray(v) ? v.length > 0 : typeof v === 'object' && v !== null && Object.keys(v).length > 0);
  const visit = (template: JsonObject, boundary: JsonObject | undefined) => {
    if (template.container) {
      const pick = (field: string, isSet: (v: unknown) => boolean) => [template[field], boundary?.[field], spec[field]].find(isSet);
      pods.push({
        nodeSelector: pick('nodeSelector', nonEmpty) ?? {},
        affinity: pick('affinity', (v) => typeof v === 'object' && v !== null),
        tolerations: pick('tolerations', nonEmpty) ?? [],
      });
      return;
    }
    const children = template.dag ? template.dag.tasks : (template.steps ?? []).flat();
    for (const child of children) visit(byName.get(child.template)!, template);
  };
  visit(byName.get(spec.entrypoint)!, undefined);
  return pods;
}

const sameRequirement = (a: NodeSelectorRequirement, b: NodeSelectorRequirement) =>
  a.key === b.key && a.operator === b.operator && JSON.stringify(a.values ?? []) === JSON.stringify(b.values ?? []);
const termIncludes = (outer: NodeSelectorTerm, inner: NodeSelectorTerm) =>
  (inner.matchExpressions ?? []).every((r) => (outer.matchExpressions ?? []).some((o) => sameRequirement(o, r)));

/** Every node that satisfies `claim` satisfies the pod's nodeSelector, required node affinity and taint permissions. */
function claimCoversPod(claim: NodeClaim | undefined, pod: JsonObject): void {
  const terms = claim?.hardNodeAffinity?.nodeSelectorTerms;
  for (const [key, value] of Object.entries(pod.nodeSelector as Record<string, string>)) {
    const inMap = claim?.nodeSelector?.[key] === value;
    const inEveryTerm = terms !== undefined && terms.every((t) => termIncludes(t, { matchExpressions: [{ key, operator: 'In', values: [value] }] }));
    expect(inMap || inEveryTerm, `nodeSelector ${key}=${value}`).toBe(true);
  }
  const podTerms: NodeSelectorTerm[] | undefined = pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (podTerms) {
    expect(terms, 'the claim has a required node affinity').toBeDefined();
    for (const claimTerm of terms!) expect(podTerms.some((t) => termIncludes(claimTerm, t))).toBe(true);
  }
  for (const toleration of pod.tolerations as JsonObject[]) expect(claim?.tolerations).toContainEqual(toleration);
}

describe('Workflow node claim (addSchedulingConstraints)', () => {
  it('never under-claims: every requirement of every pod Argo would build is in the claim', () => {
    fc.assert(
      fc.property(workflowArbitrary, (spec) => {
        const claim = getReplicas(workflow(spec)).requirements?.nodeClaim;
        for (const pod of referencePods(spec)) claimCoversPod(claim, pod);
      }),
      { numRuns: 300 },
    );
  });

  it('claims nothing no pod requires', () => {
    fc.assert(
      fc.property(workflowArbitrary, (spec) => {
        const claim = getReplicas(workflow(spec)).requirements?.nodeClaim;
        const pods = referencePods(spec);
        for (const [key, value] of Object.entries(claim?.nodeSelector ?? {})) {
          expect(pods.some((pod) => pod.nodeSelector[key] === value)).toBe(true);
        }
        for (const toleration of claim?.tolerations ?? [])
          expect(pods.some((pod) => pod.tolerations.some((t: JsonObject) => JSON.stringify(t) === JSON.stringify(toleration)))).toBe(true);
        // Node affinity appears only when some pod has one, or two pods need different values of a label.
        const valuesByLabel = new Map<string, Set<string>>();
        for (const pod of pods)
          for (const [key, value] of Object.entries(pod.nodeSelector as Record<string, string>))
            valuesByLabel.set(key, (valuesByLabel.get(key) ?? new Set()).add(value));
        const labelConflict = [...valuesByLabel.values()].some((values) => values.size > 1);
        const anyAffinity = pods.some((pod) => pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
        expect(claim?.hardNodeAffinity !== undefined).toBe(labelConflict || Boolean(anyAffinity));
      }),
      { numRuns: 300 },
    );
  });

  it("is exactly the pod's constraints when there is one pod", () => {
    fc.assert(
      fc.property(constraintsArbitrary, constraintsArbitrary, (own, workflowLevel) => {
        const spec = defined({ entrypoint: 'p', templates: [defined({ name: 'p', ...own, container: { image: 'x' } })], ...workflowLevel });
        const [pod] = referencePods(spec);
        const claim = getReplicas(workflow(spec)).requirements?.nodeClaim;
        const expected: JsonObject = {};
        const podRequired = pod!.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
        if (podRequired) expected.hardNodeAffinity = podRequired;
        if (Object.keys(pod!.nodeSelector).length > 0) expected.nodeSelector = pod!.nodeSelector;
        if (pod!.tolerations.length > 0) expected.tolerations = pod!.tolerations;
        expect(claim ?? {}).toEqual(expected);
      }),
    );
  });

  it('ANDs several required node affinities as the cross product of their terms', () => {
    const result = getReplicas(
      workflow({
        entrypoint: 'main',
        templates: [
          {
            name: 'main',
            steps: [
              [
                { name: 'a', template: 'a' },
                { name: 'b', template: 'b' },
              ],
            ],
          },
          { name: 'a', affinity: required(term('zone', ['a']), term('zone', ['b'])), container: { image: 'x' } },
          { name: 'b', affinity: required(term('arch', ['arm64']), term('arch', ['amd64'])), container: { image: 'x' } },
        ],
      }),
    );
    expect(result.requirements?.nodeClaim?.hardNodeAffinity?.nodeSelectorTerms).toEqual([
      { matchExpressions: [...term('zone', ['a']).matchExpressions!, ...term('arch', ['arm64']).matchExpressions!] },
      { matchExpressions: [...term('zone', ['a']).matchExpressions!, ...term('arch', ['amd64']).matchExpressions!] },
      { matchExpressions: [...term('zone', ['b']).matchExpressions!, ...term('arch', ['arm64']).matchExpressions!] },
      { matchExpressions: [...term('zone', ['b']).matchExpressions!, ...term('arch', ['amd64']).matchExpressions!] },
    ]);
  });

  it("keeps at most MAX_AFFINITY_TERMS combinations, each still implying every pod's affinity", () => {
    const pods = Array.from({ length: 12 }, (_, i) => ({
      name: `p${i}`,
      affinity: required(term(`k${i}`, ['x']), term(`k${i}`, ['y'])),
      container: { image: 'x' },
    }));
    const spec = { entrypoint: 'main', templates: [{ name: 'main', steps: [pods.map((p) => ({ name: p.name, template: p.name }))] }, ...pods] };
    const terms = getReplicas(workflow(spec)).requirements!.nodeClaim!.hardNodeAffinity!.nodeSelectorTerms;
    expect(terms).toHaveLength(MAX_AFFINITY_TERMS);
    for (const claimTerm of terms) {
      for (const pod of pods)
        expect(pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.some((t) => termIncludes(claimTerm, t))).toBe(true);
    }
  });

  it("applies a steps template's constraints to the pods of templates it runs through templateRef", () => {
    const result = getReplicas(
      workflow({
        entrypoint: 'main',
        nodeSelector: { pool: 'default' },
        templates: [{ name: 'main', nodeSelector: { pool: 'gpu' }, steps: [[{ name: 'shared', templateRef: { name: 'library', template: 'train' } }]] }],
      }),
    );
    expect(result.requirements?.nodeClaim).toEqual({ nodeSelector: { pool: 'gpu' } });
  });

  it("takes a workflowTemplateRef's pods to carry the workflow's constraints, and a local name it does not define to be the WorkflowTemplate's", () => {
    expect(
      getReplicas(workflow({ workflowTemplateRef: { name: 'base' }, tolerations: [{ key: 'batch', operator: 'Exists' }] })).requirements?.nodeClaim,
    ).toEqual({
      tolerations: [{ key: 'batch', operator: 'Exists' }],
    });
    const local = getReplicas(
      workflow({
        workflowTemplateRef: { name: 'base' },
        entrypoint: 'main',
        templates: [{ name: 'main', nodeSelector: { zone: 'a' }, dag: { tasks: [{ name: 'x', template: 'defined-in-base' }] } }],
      }),
    );
    expect(local.requirements?.nodeClaim).toEqual({ nodeSelector: { zone: 'a' } });
  });

  it('makes a selector whose terms have no requirements match nothing when combined', () => {
    const result = getReplicas(
      workflow({
        entrypoint: 'main',
        templates: [
          {
            name: 'main',
            steps: [
              [
                { name: 'a', template: 'a' },
                { name: 'b', template: 'b' },
              ],
            ],
          },
          { name: 'a', affinity: required({}), container: { image: 'x' } },
          { name: 'b', affinity: required(term('zone', ['a'])), container: { image: 'x' } },
        ],
      }),
    );
    expect(result.requirements?.nodeClaim?.hardNodeAffinity).toEqual({ nodeSelectorTerms: [] });
  });
});

describe('Workflow priority class (addSchedulingConstraints)', () => {
  it("takes the template's priorityClassName over podPriorityClassName, and templateDefaults' as the template's", () => {
    const run = (template: JsonObject, extra: JsonObject = {}) =>
      getReplicas(workflow({ entrypoint: 't', podPriorityClassName: 'low', ...extra, templates: [{ name: 't', container: { image: 'x' }, ...template }] }))
        .requirements?.priorityClassName;
    expect(run({ priorityClassName: 'high' })).toBe('high');
    expect(run({})).toBe('low');
    expect(run({}, { templateDefaults: { priorityClassName: 'default-class' } })).toBe('default-class');
    expect(run({ priorityClassName: 'own' }, { templateDefaults: { priorityClassName: 'default-class' } })).toBe('own');
  });

  it("reports podPriorityClassName when some pod runs with it and the pods disagree, else the first pod's class", () => {
    const spec = (workflowClass: string | undefined) => ({
      entrypoint: 'main',
      ...(workflowClass ? { podPriorityClassName: workflowClass } : {}),
      templates: [
        {
          name: 'main',
          steps: [
            [
              { name: 'a', template: 'a' },
              { name: 'b', template: 'b' },
            ],
          ],
        },
        { name: 'a', priorityClassName: 'first', container: { image: 'x' } },
        { name: 'b', container: { image: 'x' } },
      ],
    });
    expect(getReplicas(workflow(spec('low'))).requirements?.priorityClassName).toBe('low');
    expect(getReplicas(workflow(spec(undefined))).requirements?.priorityClassName).toBe('first');
  });
});

describe('Workflow InterpretReplica on hostile shapes', () => {
  it('follows templates that call each other in a cycle once each', () => {
    const result = getReplicas(
      workflow({
        entrypoint: 'a',
        templates: [
          {
            name: 'a',
            steps: [
              [
                { name: 'to-b', template: 'b' },
                { name: 'work', template: 'work' },
              ],
            ],
          },
          {
            name: 'b',
            nodeSelector: { ring: 'b' },
            dag: {
              tasks: [
                { name: 'to-a', template: 'a' },
                { name: 'self', template: 'b' },
                { name: 'work', template: 'work' },
              ],
            },
          },
          { name: 'work', container: { image: 'x', resources: { requests: { cpu: '1' } } } },
        ],
      }),
    );
    // work runs under a (no nodeSelector) and under b (ring=b).
    expect(result).toEqual({ replicas: 1, requirements: { resourceRequest: { cpu: '1' }, nodeClaim: { nodeSelector: { ring: 'b' } } } });
  });

  it('sizes a pod nested in thousands of inline steps templates without recursion', () => {
    let inner: JsonObject = { container: { image: 'x', resources: { requests: { cpu: '3' } } }, nodeSelector: { deep: 'yes' } };
    for (let depth = 0; depth < 20_000; depth++) inner = { steps: [[{ name: `s${depth}`, inline: inner }]] };
    const result = getReplicas(workflow({ entrypoint: 'root', templates: [{ name: 'root', ...inner }] }));
    expect(result.requirements).toEqual({ resourceRequest: { cpu: '3' }, nodeClaim: { nodeSelector: { deep: 'yes' } } });
  });

  it('counts a template called from many steps once for its resources and once per distinct caller for its constraints', () => {
    const steps = Array.from({ length: 5000 }, (_, i) => ({ name: `s${i}`, template: 'work' }));
    const result = getReplicas(
      workflow({
        entrypoint: 'main',
        templates: [
          { name: 'main', tolerations: [{ key: 'a', operator: 'Exists' }], steps: [steps] },
          { name: 'work', container: { image: 'x', resources: { requests: { cpu: '2' } } } },
        ],
      }),
    );
    expect(result.requirements).toEqual({ resourceRequest: { cpu: '2' }, nodeClaim: { tolerations: [{ key: 'a', operator: 'Exists' }] } });
  });

  it('refuses with a 400 when templateDefaults would be merged into every template too many times', () => {
    const bigSelector = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`label-${i}`, 'x']));
    const templates = Array.from({ length: 1_000 }, (_, i) => ({ name: `t${i}`, nodeSelector: { own: String(i) }, container: { image: 'x' } }));
    let caught: unknown;
    try {
      getReplicas(workflow({ templateDefaults: { nodeSelector: bigSelector }, templates }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InterpreterError);
    expect((caught as InterpreterError).code).toBe(400);
    expect((caught as InterpreterError).message).toMatch(/Workflow ci\/w is too large to interpret: applying spec.templateDefaults to every template/);
  });

  it('still applies a small templateDefaults to thousands of templates', () => {
    const templates = Array.from({ length: 5_000 }, (_, i) => ({ name: `t${i}`, nodeSelector: { pool: 'p' }, container: { image: 'x' } }));
    const result = getReplicas(
      workflow({ templateDefaults: { nodeSelector: { zone: 'a' }, container: { resources: { requests: { cpu: '100m' } } } }, templates }),
    );
    expect(result.requirements).toEqual({ resourceRequest: { cpu: '100m' }, nodeClaim: { nodeSelector: { zone: 'a', pool: 'p' } } });
  });
});
