// Workflow Retain, ReviseReplica and InterpretHealth edge cases beyond the Karmada-format testdata.
// Retain records the member-owned fields the control plane set, as Karmada records managed labels and
// annotations (karmada-io/karmada pkg/util/annotation.go, pkg/util/label.go).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interpretHealth } from '../../interpreters/argoproj.io/v1alpha1/Workflow/health.ts';
import { retain, reviseReplica } from '../../interpreters/argoproj.io/v1alpha1/Workflow/retain.ts';

const suspendValue = fc.option(fc.boolean(), { nil: undefined });
const shutdownValue = fc.option(fc.constantFrom('', 'Stop', 'Terminate'), { nil: undefined });
const deadlineValue = fc.option(fc.constantFrom(0, 60, 3600), { nil: undefined });
const specArbitrary = fc.record(
  { suspend: suspendValue, shutdown: shutdownValue, activeDeadlineSeconds: deadlineValue, entrypoint: fc.constant('main') },
  { requiredKeys: ['entrypoint'] },
);
const statusArbitrary = fc.option(fc.record({ phase: fc.constantFrom('Pending', 'Running', 'Failed'), progress: fc.constant('1/2') }), { nil: undefined });

function workflow(spec: Record<string, unknown>, status?: Record<string, unknown>): Record<string, any> {
  const object: Record<string, any> = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', metadata: { name: 'w', namespace: 'ci' }, spec };
  if (status) object.status = status;
  return object;
}

const isSet = (value: unknown) => value !== undefined && value !== null && value !== '';

const RECORD = 'interpreter.karmada.io/managed-fields';
const recordOf = (object: Record<string, any>): string[] => (object.metadata?.annotations?.[RECORD] ?? '').split(',').filter(Boolean);
const recordArbitrary = fc.subarray(['spec.suspend', 'spec.shutdown', 'spec.activeDeadlineSeconds']);

function member(spec: Record<string, unknown>, record: string[], status?: Record<string, unknown>): Record<string, any> {
  const object = workflow(spec, status);
  if (record.length > 0) object.metadata.annotations = { [RECORD]: record.join(',') };
  return object;
}

describe('Workflow retain', () => {
  it("keeps an explicit template value, drops a value the control plane set and removed, else keeps the member's", () => {
    fc.assert(
      fc.property(specArbitrary, specArbitrary, recordArbitrary, statusArbitrary, (desiredSpec, observedSpec, record, status) => {
        const result = retain(workflow(structuredClone(desiredSpec)), member(structuredClone(observedSpec), record, status));
        for (const field of ['suspend', 'shutdown', 'activeDeadlineSeconds'] as const) {
          const keepable = field === 'activeDeadlineSeconds' ? observedSpec[field] === 0 : isSet(observedSpec[field]);
          const expected = isSet(desiredSpec[field]) || record.includes(`spec.${field}`) || !keepable ? desiredSpec[field] : observedSpec[field];
          expect(result.spec[field]).toEqual(expected);
        }
        expect(recordOf(result).sort()).toEqual(
          (['suspend', 'shutdown', 'activeDeadlineSeconds'] as const)
            .filter((f) => isSet(desiredSpec[f]))
            .map((f) => `spec.${f}`)
            .sort(),
        );
        expect(result.status).toEqual(status);
      }),
    );
  });

  it('reaches a fixed point: retaining again against the object it produced changes nothing', () => {
    fc.assert(
      fc.property(specArbitrary, specArbitrary, recordArbitrary, statusArbitrary, (desiredSpec, observedSpec, record, status) => {
        const once = retain(workflow(structuredClone(desiredSpec)), member(structuredClone(observedSpec), record, status));
        const twice = retain(workflow(structuredClone(desiredSpec)), structuredClone(once));
        expect(twice).toEqual(once);
      }),
    );
  });

  // The lifecycle of argo-workflows workflow/util/util.go: SuspendWorkflow sets spec.suspend true,
  // ResumeWorkflow sets it to nil; StopWorkflow/TerminateWorkflow set spec.shutdown, retry clears it.
  it('lets a control-plane resume take effect after a control-plane suspend', () => {
    const created = reviseReplica(workflow({ entrypoint: 'main' }), 1);
    const suspended = retain(workflow({ entrypoint: 'main', suspend: true }), { ...created, status: { phase: 'Running' } });
    expect(suspended.spec.suspend).toBe(true);
    const resumed = retain(workflow({ entrypoint: 'main' }), suspended);
    expect(resumed.spec).toEqual({ entrypoint: 'main' });
    expect(recordOf(resumed)).toEqual([]);
  });

  it('lets a control-plane resume take effect for a workflow submitted suspended (recorded at creation by ReviseReplica)', () => {
    const manifest = reviseReplica(workflow({ entrypoint: 'main', suspend: true }), 1);
    expect(recordOf(manifest)).toEqual(['spec.suspend']);
    const resumed = retain(workflow({ entrypoint: 'main' }), { ...manifest, status: { phase: 'Running' } });
    expect(resumed.spec).toEqual({ entrypoint: 'main' });
  });

  it('keeps argo suspend, stop and terminate run in the member, across any number of re-applies', () => {
    let observed = member({ entrypoint: 'main', suspend: true, shutdown: 'Terminate' }, [], { phase: 'Running' });
    for (let round = 0; round < 3; round++) {
      observed = retain(workflow({ entrypoint: 'main' }), structuredClone(observed));
      expect(observed.spec).toEqual({ entrypoint: 'main', suspend: true, shutdown: 'Terminate' });
    }
  });

  it('adds a spec only when there is something to keep', () => {
    expect(retain({ kind: 'Workflow' }, { kind: 'Workflow', spec: { entrypoint: 'main' } })).toEqual({ kind: 'Workflow' });
    expect(retain({ kind: 'Workflow' }, { kind: 'Workflow', spec: { suspend: true } })).toEqual({ kind: 'Workflow', spec: { suspend: true } });
  });

  it('treats a null template suspend as unset, and does not copy a null member status', () => {
    const result = retain(workflow({ suspend: null }), { ...workflow({ suspend: true }), status: null });
    expect(result.spec.suspend).toBe(true);
    expect(result).not.toHaveProperty('status');
  });
});

describe('Workflow reviseReplica', () => {
  it('returns the workflow unchanged for any share, parallelism included', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }), (share, parallelism) => {
        const object = workflow(parallelism === undefined ? { entrypoint: 'main' } : { entrypoint: 'main', parallelism });
        expect(reviseReplica(structuredClone(object), share)).toEqual(object);
      }),
    );
  });

  it('only records which member-owned fields the template sets', () => {
    fc.assert(
      fc.property(specArbitrary, fc.integer({ min: 0, max: 10 }), (spec, share) => {
        const revised = reviseReplica(workflow(structuredClone(spec)), share);
        expect(revised.spec).toEqual(spec);
        expect(recordOf(revised).sort()).toEqual(
          (['suspend', 'shutdown', 'activeDeadlineSeconds'] as const)
            .filter((f) => isSet(spec[f]))
            .map((f) => `spec.${f}`)
            .sort(),
        );
      }),
    );
  });
});

describe('Workflow interpretHealth', () => {
  it('is healthy for Pending, Running and Succeeded whatever the spec says', () => {
    fc.assert(
      fc.property(fc.constantFrom('Pending', 'Running', 'Succeeded'), specArbitrary, (phase, spec) => {
        expect(interpretHealth(workflow(spec, { phase }))).toBe(true);
      }),
    );
  });

  it('is healthy for Failed and Error exactly when the end was requested', () => {
    fc.assert(
      fc.property(fc.constantFrom('Failed', 'Error'), specArbitrary, (phase, spec) => {
        const requested = isSet(spec.shutdown) || spec.activeDeadlineSeconds === 0;
        expect(interpretHealth(workflow(spec, { phase }))).toBe(requested);
      }),
    );
  });

  it('is unhealthy without status, phase, or with a phase Argo does not have', () => {
    expect(interpretHealth(workflow({ shutdown: 'Stop' }))).toBe(false);
    expect(interpretHealth(workflow({}, {}))).toBe(false);
    expect(interpretHealth({ ...workflow({}), status: null })).toBe(false);
    expect(interpretHealth(workflow({}, { phase: 'Skipped' }))).toBe(false);
    expect(interpretHealth(workflow({}, { phase: 42 as unknown as string }))).toBe(false);
  });
});
