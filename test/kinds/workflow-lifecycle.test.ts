// Workflow Retain, ReviseReplica and InterpretHealth edge cases beyond the Karmada-format testdata.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interpretHealth } from '../../interpreters/argoproj.io/v1alpha1/Workflow/health.ts';
import { retain, reviseReplica } from '../../interpreters/argoproj.io/v1alpha1/Workflow/retain.ts';

const suspendValue = fc.option(fc.boolean(), { nil: undefined });
const shutdownValue = fc.option(fc.constantFrom('', 'Stop', 'Terminate'), { nil: undefined });
const deadlineValue = fc.option(fc.constantFrom(0, 60, 3600), { nil: undefined });
const specArbitrary = fc.record({ suspend: suspendValue, shutdown: shutdownValue, activeDeadlineSeconds: deadlineValue, entrypoint: fc.constant('main') }, { requiredKeys: ['entrypoint'] });
const statusArbitrary = fc.option(fc.record({ phase: fc.constantFrom('Pending', 'Running', 'Failed'), progress: fc.constant('1/2') }), { nil: undefined });

function workflow(spec: Record<string, unknown>, status?: Record<string, unknown>): Record<string, any> {
  const object: Record<string, any> = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', metadata: { name: 'w', namespace: 'ci' }, spec };
  if (status) object.status = status;
  return object;
}

const isSet = (value: unknown) => value !== undefined && value !== null && value !== '';

describe('Workflow retain', () => {
  it('keeps every explicit template value and otherwise takes the member value', () => {
    fc.assert(
      fc.property(specArbitrary, specArbitrary, statusArbitrary, (desiredSpec, observedSpec, status) => {
        const result = retain(workflow(structuredClone(desiredSpec)), workflow(structuredClone(observedSpec), status));
        for (const field of ['suspend', 'shutdown'] as const) {
          const expected = isSet(desiredSpec[field]) ? desiredSpec[field] : isSet(observedSpec[field]) ? observedSpec[field] : desiredSpec[field];
          expect(result.spec[field]).toEqual(expected);
        }
        const deadline = isSet(desiredSpec.activeDeadlineSeconds) ? desiredSpec.activeDeadlineSeconds : observedSpec.activeDeadlineSeconds === 0 ? 0 : desiredSpec.activeDeadlineSeconds;
        expect(result.spec.activeDeadlineSeconds).toEqual(deadline);
        expect(result.status).toEqual(status);
      }),
    );
  });

  it('is idempotent (a second re-apply changes nothing)', () => {
    fc.assert(
      fc.property(specArbitrary, specArbitrary, statusArbitrary, (desiredSpec, observedSpec, status) => {
        const observed = workflow(observedSpec, status);
        const once = retain(workflow(structuredClone(desiredSpec)), structuredClone(observed));
        const twice = retain(structuredClone(once), structuredClone(observed));
        expect(twice).toEqual(once);
      }),
    );
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
  it('returns the workflow unchanged for any share', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }), (share, parallelism) => {
        const object = workflow(parallelism === undefined ? { entrypoint: 'main' } : { entrypoint: 'main', parallelism });
        expect(reviseReplica(structuredClone(object), share)).toEqual(object);
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
