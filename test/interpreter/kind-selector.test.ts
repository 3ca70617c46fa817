// How kinds are named on the command line (--examples, --kinds, --exclude-kinds), and the suggestions.
import { describe, expect, it } from 'vitest';
import { didYouMean } from '../../src/did-you-mean.ts';
import { filterKinds, parseKindSelector, parseSelectors, selectorName } from '../../src/interpreter/kind-selector.ts';
import { selectExamples, shippedExamples } from '../../src/customizations/examples.ts';

const SERVED = [
  { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' },
  { apiVersion: 'xline.io.datenlord.com/v1alpha1', kind: 'XlineCluster' },
  { apiVersion: 'xlineoperator.xline.cloud/v1alpha1', kind: 'XlineCluster' },
  { apiVersion: 'v1', kind: 'Pod' },
];

describe('kind selectors', () => {
  it('take Kind or Kind.group, case-insensitively; a core kind is named without a group', () => {
    expect(parseKindSelector('Rollout.argoproj.io')).toEqual({ text: 'Rollout.argoproj.io', kind: 'Rollout', group: 'argoproj.io' });
    expect(selectorName(SERVED[3]!)).toBe('Pod');
    const xline = parseSelectors(['xlinecluster'], SERVED, 'served kind');
    expect(filterKinds(SERVED, xline, [])).toEqual(SERVED.slice(1, 3));
    const one = parseSelectors(['XlineCluster.xline.io.datenlord.com'], SERVED, 'served kind');
    expect(filterKinds(SERVED, [], one).map(selectorName)).toEqual(['CloneSet.apps.kruise.io', 'XlineCluster.xlineoperator.xline.cloud', 'Pod']);
    expect(filterKinds(SERVED, parseSelectors(['CloneSet,Pod'], SERVED, 'served kind'), []).map(selectorName)).toEqual(['CloneSet.apps.kruise.io', 'Pod']);
  });

  it('refuse a name that selects nothing, with the closest name and the list', () => {
    expect(() => parseSelectors(['Clonset'], SERVED, 'served kind')).toThrow(
      '"Clonset" matches no served kind (did you mean CloneSet?); served kinds: CloneSet.apps.kruise.io, Pod, XlineCluster.xline.io.datenlord.com, XlineCluster.xlineoperator.xline.cloud',
    );
    expect(() => parseSelectors(['CloneSet.apps.kruise.oi'], SERVED, 'served kind')).toThrow(/did you mean CloneSet\.apps\.kruise\.io\?/);
    expect(() => parseSelectors(['apps/v1/Deployment'], SERVED, 'served kind')).toThrow(/is not a kind: write Kind or Kind.group/);
  });
});

describe('shipped examples', () => {
  it('are named by their folder, and selected by name or all', () => {
    expect(shippedExamples().map((example) => example.name)).toEqual(['Rollout.argoproj.io', 'ScaledObject.keda.sh']);
    expect(selectExamples([]).map((example) => example.name)).toEqual([]);
    expect(selectExamples(['all']).length).toBe(2);
    expect(selectExamples(['scaledobject']).map((example) => [example.apiVersion, example.kind])).toEqual([['keda.sh/v1alpha1', 'ScaledObject']]);
    expect(() => selectExamples(['Workflow'])).toThrow('"Workflow" matches no shipped example; shipped examples: Rollout.argoproj.io, ScaledObject.keda.sh');
  });
});

describe('didYouMean', () => {
  it('suggests a close name, ignoring case, and nothing for a far one or a very long one', () => {
    expect(didYouMean('healthInterpretations', ['healthInterpretation', 'statusReflection'])).toBe('healthInterpretation');
    expect(didYouMean('LUASCRIPT', ['luaScript'])).toBe('luaScript');
    expect(didYouMean('componentRevision', ['componentResource', 'replicaRevision'])).toBeUndefined();
    expect(didYouMean('x'.repeat(5000), ['x'])).toBeUndefined();
  });
});
