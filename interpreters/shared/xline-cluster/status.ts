// InterpretStatus and InterpretHealth. The reflected status is all that AggregateStatus and state
// preservation ever see of a member, so it carries every fact they use, including the member count
// and the generations that tell whether the member runs the template's latest spec.
import type { KObject } from '../../../src/interpreter/types.ts';
import type { XlineApi } from './api.ts';
import { isCount } from './values.ts';

/** Set by Karmada on every member object: the template generation the manifest was built from. */
export const TEMPLATE_GENERATION_ANNOTATION = 'resourcetemplate.karmada.io/generation';

export function reflectStatus(api: XlineApi, observed: KObject): Record<string, unknown> {
  const out = api.reflect(observed);
  const count = observed.spec?.[api.sizeField];
  if (isCount(count)) out[api.sizeField] = count;
  if (isCount(observed.metadata?.generation)) out.generation = observed.metadata.generation;
  const templateGeneration = observed.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  if (typeof templateGeneration === 'string' && /^\d+$/.test(templateGeneration)) out.resourceTemplateGeneration = Number(templateGeneration);
  return out;
}

export function interpretHealth(api: XlineApi, observed: KObject): boolean {
  return api.verdict(reflectStatus(api, observed)).healthy;
}
