// InterpretStatus and InterpretHealth. The reflected status is all that AggregateStatus and state
// preservation ever see of a member, so it carries every fact they use, including the member count.
import type { KObject } from '../../../../src/interpreter/types.ts';
import { apiOf } from './versions.ts';
import { isCount } from './values.ts';

const TEMPLATE_GENERATION_ANNOTATION = 'resourcetemplate.karmada.io/generation';

export function reflectStatus(observed: KObject): Record<string, unknown> {
  const api = apiOf(observed);
  const out = api.reflect(observed);
  const count = observed.spec?.[api.sizeField];
  if (isCount(count)) out[api.sizeField] = count;
  if (isCount(observed.metadata?.generation)) out.generation = observed.metadata.generation;
  const templateGeneration = observed.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  if (typeof templateGeneration === 'string' && /^\d+$/.test(templateGeneration)) out.resourceTemplateGeneration = Number(templateGeneration);
  return out;
}

export function interpretHealth(observed: KObject): boolean {
  return apiOf(observed).verdict(reflectStatus(observed)).healthy;
}
