// Merging RICs per target exactly as Karmada's declarative config manager does
// (pkg/resourceinterpreter/customized/declarative/configmanager/{manager.go,accessor.go}).
import type { Customization, ScriptPosition } from './parse.ts';
import { CUSTOMIZATION_RULES, type CustomizationField } from '../lua/operations.ts';

export type SingleScriptField = Exclude<CustomizationField, 'dependencyInterpretation'>;

/** A script and the customization it came from (for error messages and /readyz). */
export interface ScriptSource {
  script: string;
  customization: string;
  file: string;
  /** Where the script is in its file (for line numbers in errors), when known. */
  position?: ScriptPosition;
}

export interface MergedTarget {
  apiVersion: string;
  kind: string;
  /** The first non-empty script per field, in metadata.name order. */
  rules: Partial<Record<SingleScriptField, ScriptSource>>;
  /** Every non-empty dependencyInterpretation script, in metadata.name order: all of them run. */
  dependencies: ScriptSource[];
  /** Names of the RICs for this target, in merge order. */
  customizations: string[];
  files: string[];
}

export interface MergeWarning {
  file: string;
  message: string;
}

/**
 * Keyed by the exact target apiVersion + kind (no wildcards, no version conversion); RICs are processed
 * in metadata.name order (ties, which the API server cannot have, keep file order); for every field but
 * dependencyInterpretation the first non-empty script wins. A script that loses is reported as a warning,
 * because Karmada's admission webhook would have rejected the second RIC setting the same field.
 */
export function mergeCustomizations(customizations: readonly Customization[]): {
  targets: MergedTarget[];
  warnings: MergeWarning[];
} {
  const ordered = [...customizations].sort((a, b) => compareStrings(a.name, b.name));
  const byTarget = new Map<string, MergedTarget>();
  const warnings: MergeWarning[] = [];

  for (const ric of ordered) {
    const key = `${ric.target.apiVersion}\n${ric.target.kind}`;
    let merged = byTarget.get(key);
    if (!merged) {
      merged = { ...ric.target, rules: {}, dependencies: [], customizations: [], files: [] };
      byTarget.set(key, merged);
    }
    merged.customizations.push(ric.name);
    if (!merged.files.includes(ric.file)) merged.files.push(ric.file);

    for (const { field } of CUSTOMIZATION_RULES) {
      const script = ric.scripts[field];
      if (!script) continue;
      const position = ric.positions?.[field];
      const source: ScriptSource = position
        ? { script, customization: ric.name, file: ric.file, position }
        : { script, customization: ric.name, file: ric.file };
      if (field === 'dependencyInterpretation') {
        merged.dependencies.push(source);
        continue;
      }
      const winner = merged.rules[field];
      if (!winner) {
        merged.rules[field] = source;
      } else {
        warnings.push({
          file: ric.file,
          message:
            `customization ${ric.name}: ${field} for ${ric.target.apiVersion} ${ric.target.kind} is ignored: ` +
            `customization ${winner.customization} sets it and sorts first`,
        });
      }
    }
  }

  const targets = [...byTarget.values()].sort((a, b) => compareStrings(a.apiVersion, b.apiVersion) || compareStrings(a.kind, b.kind));
  return { targets, warnings };
}

/** Byte-wise order, as Go's `<` on strings (Kubernetes names are ASCII, where UTF-16 order agrees). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
