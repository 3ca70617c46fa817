// The generation bookkeeping Karmada's native aggregators use, so a GitOps tool watching the template
// (Argo CD, Flux) sees status.observedGeneration advance only when every member runs the latest spec.
import { type AggregatedStatusItem, isJsonObject, type JsonObject, type KObject } from '../../../src/interpreter/types.ts';
import { annotationsOf, intOr0 } from './fields.ts';

/** The annotation Karmada puts on member objects: the template generation the manifest came from. */
export const RESOURCE_TEMPLATE_GENERATION_ANNOTATION = 'resourcetemplate.karmada.io/generation';

/**
 * `generation` (the member's metadata.generation) and `resourceTemplateGeneration` (from Karmada's
 * annotation) for the reflected status; a field is left out when its source is missing, as the
 * built-in does.
 */
export function generationFields(observed: KObject): JsonObject {
  const out: JsonObject = {};
  const generation = isJsonObject(observed.metadata) ? observed.metadata.generation : undefined;
  if (typeof generation === 'number' && Number.isInteger(generation)) out.generation = generation;
  const annotation = annotationsOf(observed)[RESOURCE_TEMPLATE_GENERATION_ANNOTATION];
  if (typeof annotation === 'string' && /^\d+$/.test(annotation.trim())) out.resourceTemplateGeneration = Number(annotation.trim());
  return out;
}

/**
 * Karmada's native rule (aggregateDeploymentStatus): observedGeneration becomes the template's
 * generation only when every item has a status whose member observedGeneration >= member generation
 * and resourceTemplateGeneration >= template generation; otherwise the previous value stays. Zero
 * items count as "all current". `applied` is not consulted: a failed apply leaves the member's
 * resourceTemplateGeneration behind, which already blocks the advance. Never moves backwards.
 * Returns undefined when there is no value to write.
 */
export function aggregatedObservedGeneration(template: KObject, items: AggregatedStatusItem[]): number | undefined {
  const generation = intOr0(isJsonObject(template.metadata) ? template.metadata.generation : undefined);
  const previousRaw = isJsonObject(template.status) ? template.status.observedGeneration : undefined;
  const previous = typeof previousRaw === 'number' && Number.isInteger(previousRaw) ? previousRaw : undefined;
  const allCurrent = items.every(
    (item) =>
      isJsonObject(item.status) &&
      intOr0(item.status.observedGeneration) >= intOr0(item.status.generation) &&
      intOr0(item.status.resourceTemplateGeneration) >= generation,
  );
  if (!allCurrent) return previous;
  return previous !== undefined && previous > generation ? previous : generation;
}
