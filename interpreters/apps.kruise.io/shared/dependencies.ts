// Names of PVCs a workload creates itself from volumeClaimTemplates: per pod in the member, so they
// must not be propagated as dependencies (native StatefulSet filters them the same way).
import { isJsonObject, type KObject } from '../../../src/interpreter/types.ts';

export function volumeClaimTemplateNames(obj: KObject): string[] {
  const templates = isJsonObject(obj.spec) ? obj.spec.volumeClaimTemplates : undefined;
  if (!Array.isArray(templates)) return [];
  return templates
    .map((t) => (isJsonObject(t) && isJsonObject(t.metadata) ? t.metadata.name : undefined))
    .filter((name): name is string => typeof name === 'string' && name !== '');
}
