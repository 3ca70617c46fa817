import { describe, expect, it } from 'vitest';
import { evaluatePreservation } from '../../src/preservation/evaluate.ts';

// Reflected statuses from kinds.md §7 (what InterpretStatus returns, i.e. aggregatedStatus[].status).
const cloneSetStatus = { replicas: 6, updatedReplicas: 3, readyReplicas: 6, updateRevision: 'web-6d9f', currentRevision: 'web-5c8b', observedGeneration: 4 };
const advancedStatefulSetStatus = { replicas: 3, updatedReplicas: 3, readyReplicas: 3, updateRevision: 'db-7f8c' };
const workflowStatus = {
  phase: 'Running',
  startedAt: '2026-03-01T10:00:00Z',
  progress: '2/4',
  outputs: { parameters: [{ name: 'checkpoint', value: 'ck-0042' }] },
  nodeSummary: { Running: 2, Succeeded: 2 },
  suspended: true,
};
const xlineStatus = {
  stage: 'complete',
  stageStatus: 'succeeded',
  image: 'ghcr.io/xline-kv/xline:v0.6.1',
  lastApplySpecHash: '9b2d0c51e3f04c8e8b1a6f7d2c3e4f50',
  generation: 2,
  resourceTemplateGeneration: 2,
};

const LABEL_CHARS =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const invalidValue = (value: string, problems = LABEL_CHARS) =>
  `value ${JSON.stringify(value)} is not a valid label value (${problems}); the member cluster will reject the workload when Karmada injects this label`;

describe('kinds.md §7.5 state-preservation rules', () => {
  it('CloneSet update revision', () => {
    expect(evaluatePreservation([{ aliasLabelName: 'failover.example.io/update-revision', jsonPath: '{.updateRevision}' }], cloneSetStatus)).toEqual({
      labels: { 'failover.example.io/update-revision': 'web-6d9f' },
      errors: [],
      warnings: [],
    });
  });

  it('Advanced StatefulSet updated replicas print as Go %v of a float64', () => {
    expect(evaluatePreservation([{ aliasLabelName: 'failover.example.io/updated', jsonPath: '{.updatedReplicas}' }], advancedStatefulSetStatus).labels).toEqual(
      {
        'failover.example.io/updated': '3',
      },
    );
  });

  it('Workflow checkpoint parameter via a filter', () => {
    const result = evaluatePreservation([{ aliasLabelName: 'resume-from', jsonPath: '{.outputs.parameters[?(@.name=="checkpoint")].value}' }], workflowStatus);
    expect(result).toEqual({ labels: { 'resume-from': 'ck-0042' }, errors: [], warnings: [] });
  });

  it('Workflow progress "2/4" is computed but is not a valid label value', () => {
    const result = evaluatePreservation([{ aliasLabelName: 'failover.example.io/progress', jsonPath: '{.progress}' }], workflowStatus);
    expect(result.labels).toEqual({ 'failover.example.io/progress': '2/4' });
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([{ aliasLabelName: 'failover.example.io/progress', message: invalidValue('2/4') }]);
  });

  it("Workflow phase missing from the reflected status is Karmada's execute error", () => {
    const result = evaluatePreservation([{ aliasLabelName: 'failover.example.io/phase', jsonPath: '{.phase}' }], { progress: '2/4' });
    expect(result.labels).toEqual({});
    expect(result.errors).toEqual([{ aliasLabelName: 'failover.example.io/phase', message: 'failed to execute jsonpath "{.phase}": phase is not found' }]);
  });

  it('XlineCluster spec hash is a valid 32-character value; the image is not', () => {
    const result = evaluatePreservation(
      [
        { aliasLabelName: 'failover.example.io/spec-hash', jsonPath: '{.lastApplySpecHash}' },
        { aliasLabelName: 'failover.example.io/image', jsonPath: '{.image}' },
      ],
      xlineStatus,
    );
    expect(result.labels).toEqual({
      'failover.example.io/spec-hash': '9b2d0c51e3f04c8e8b1a6f7d2c3e4f50',
      'failover.example.io/image': 'ghcr.io/xline-kv/xline:v0.6.1',
    });
    expect(result.warnings).toEqual([{ aliasLabelName: 'failover.example.io/image', message: invalidValue('ghcr.io/xline-kv/xline:v0.6.1') }]);
  });
});

describe('evaluatePreservation: Karmada semantics', () => {
  it('evaluates every rule and reports each error (Karmada stops at the first)', () => {
    const result = evaluatePreservation(
      [
        { aliasLabelName: 'a', jsonPath: '{.missing}' },
        { aliasLabelName: 'b', jsonPath: '{.updateRevision}' },
        { aliasLabelName: 'c', jsonPath: '{.x' },
      ],
      cloneSetStatus,
    );
    expect(result.labels).toEqual({ b: 'web-6d9f' });
    expect(result.errors).toEqual([
      { aliasLabelName: 'a', message: 'failed to execute jsonpath "{.missing}": missing is not found' },
      // Parse errors come back unwrapped (parseJSONValue returns j.Parse's error as is).
      { aliasLabelName: 'c', message: 'unclosed action' },
    ]);
  });

  it('quotes the jsonPath in execute errors as Go %q does', () => {
    const result = evaluatePreservation([{ aliasLabelName: 'a', jsonPath: '{.items[?(@.name=="x")].v}' }], { items: {} });
    expect(result.errors[0]!.message).toBe('failed to execute jsonpath "{.items[?(@.name==\\"x\\")].v}": map[] is not array or slice and cannot be filtered');
  });

  it('a status that was never reflected is the "not yet been collected" error for every rule', () => {
    const rules = [
      { aliasLabelName: 'a', jsonPath: '{.x}' },
      { aliasLabelName: 'b', jsonPath: '{.y}' },
    ];
    const message = 'the application status has not yet been collected from Cluster(member1)';
    expect(evaluatePreservation(rules, undefined, { clusterName: 'member1' }).errors).toEqual([
      { aliasLabelName: 'a', message },
      { aliasLabelName: 'b', message },
    ]);
    expect(evaluatePreservation(rules, null, { clusterName: 'member1' }).errors).toHaveLength(2);
  });

  it('sees the status as JSON: undefined members vanish, numbers are float64', () => {
    const result = evaluatePreservation(
      [
        { aliasLabelName: 'gone', jsonPath: '{.gone}' },
        { aliasLabelName: 'big', jsonPath: '{.big}' },
        { aliasLabelName: 'obj', jsonPath: '{.obj}' },
      ],
      { gone: undefined, big: 1000000, obj: { n: 1000000 } },
    );
    expect(result.errors).toEqual([{ aliasLabelName: 'gone', message: 'failed to execute jsonpath "{.gone}": gone is not found' }]);
    expect(result.labels).toEqual({ big: '1e+06', obj: '{"n":1000000}' });
    expect(result.warnings.map((w) => w.aliasLabelName)).toEqual(['big', 'obj']);
  });

  it('the last rule wins for a repeated alias, with a warning', () => {
    const result = evaluatePreservation(
      [
        { aliasLabelName: 'rev', jsonPath: '{.currentRevision}' },
        { aliasLabelName: 'rev', jsonPath: '{.updateRevision}' },
      ],
      cloneSetStatus,
    );
    expect(result.labels).toEqual({ rev: 'web-6d9f' });
    expect(result.warnings).toEqual([
      { aliasLabelName: 'rev', message: 'aliasLabelName is used by more than one rule; Karmada keeps the value of the last one' },
    ]);
  });

  it('warns when the alias is not a qualified label name', () => {
    const result = evaluatePreservation([{ aliasLabelName: 'bad name', jsonPath: '{.updateRevision}' }], cloneSetStatus);
    expect(result.labels).toEqual({ 'bad name': 'web-6d9f' });
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]!.message).toMatch(
      /^aliasLabelName "bad name" is not a valid label name \(name part must consist of alphanumeric characters.*\); Karmada rejects the policy$/,
    );
  });

  it('a path without braces is literal text, with a warning', () => {
    const result = evaluatePreservation([{ aliasLabelName: 'rev', jsonPath: '.updateRevision' }], cloneSetStatus);
    expect(result.labels).toEqual({ rev: '.updateRevision' });
    expect(result.warnings).toEqual([
      {
        aliasLabelName: 'rev',
        message: 'jsonPath ".updateRevision" has no {…} expression, so the value is that literal text; did you mean "{.updateRevision}"?',
      },
      { aliasLabelName: 'rev', message: invalidValue('.updateRevision') },
    ]);
  });

  it('hints when a rule starts with .status', () => {
    const result = evaluatePreservation([{ aliasLabelName: 'rev', jsonPath: '{.status.updateRevision}' }], cloneSetStatus);
    expect(result.errors).toEqual([{ aliasLabelName: 'rev', message: 'failed to execute jsonpath "{.status.updateRevision}": status is not found' }]);
    expect(result.warnings).toEqual([
      { aliasLabelName: 'rev', message: 'rules are evaluated against the reflected status itself: write {.field}, not {.status.field}' },
    ]);
  });

  it('warns when the value depends on Go map iteration order', () => {
    const result = evaluatePreservation([{ aliasLabelName: 'summary', jsonPath: '{.nodeSummary.*}' }], workflowStatus);
    expect(result.labels).toEqual({ summary: '2 2' });
    expect(result.warnings.map((w) => w.message)).toContain(
      'the value lists several map entries; Go iterates maps in random order, so Karmada may produce them in a different order',
    );
  });

  it('warns when a failure depends on Go map iteration order', () => {
    const result = evaluatePreservation([{ aliasLabelName: 'first', jsonPath: '{.nodeSummary.*[0]}' }], workflowStatus);
    expect(result.errors).toHaveLength(1);
    expect(result.warnings.map((w) => w.message)).toContain(
      'the template walks a map with several entries; Go iterates maps in random order, so Karmada may fail on another entry, or not at all',
    );
  });

  it('keeps an alias named __proto__ as a plain key', () => {
    const result = evaluatePreservation([{ aliasLabelName: '__proto__', jsonPath: '{.updateRevision}' }], cloneSetStatus);
    expect(Object.keys(result.labels)).toEqual(['__proto__']);
    expect(JSON.stringify(result.labels)).toBe('{"__proto__":"web-6d9f"}');
  });

  it('an empty value is a valid label value', () => {
    const result = evaluatePreservation([{ aliasLabelName: 'empty', jsonPath: '{.list[*]}' }], { list: [] });
    expect(result).toEqual({ labels: { empty: '' }, errors: [], warnings: [] });
  });

  it('a value longer than 63 characters is flagged with both API server messages when they apply', () => {
    const long = 'a'.repeat(70);
    const result = evaluatePreservation([{ aliasLabelName: 'long', jsonPath: '{.v}' }], { v: long });
    expect(result.warnings).toEqual([{ aliasLabelName: 'long', message: invalidValue(long, 'must be no more than 63 characters') }]);
  });

  it('abbreviates very long values in the warning, not in the label', () => {
    const long = 'a'.repeat(100);
    const result = evaluatePreservation([{ aliasLabelName: 'long', jsonPath: '{.v}' }], { v: long });
    expect(result.labels.long).toBe(long);
    expect(result.warnings[0]!.message).toBe(invalidValue(`${'a'.repeat(77)}...`, 'must be no more than 63 characters'));
  });
});
