// The Lua customizations shipped as examples (interpreters/<group>/<version>/<Kind>/customizations.yaml:
// Argo Rollout, KEDA ScaledObject). They are served only when enabled (`--examples`), so what a fresh
// install registers with Karmada is exactly the kinds the README lists as built in.
import { basename, dirname } from 'node:path';
import { parseSelectors, selects, selectorName, type KindSelector } from '../interpreter/kind-selector.ts';
import { findBuiltinCustomizationFiles } from './files.ts';

export interface ShippedExample {
  file: string;
  apiVersion: string;
  kind: string;
  /** `Kind.group`, the name `--examples` takes. */
  name: string;
}

/** Every shipped example, from its folder (`<group>/<version>/<Kind>/customizations.yaml`). */
export function shippedExamples(root?: string): ShippedExample[] {
  return findBuiltinCustomizationFiles(root).map((file) => {
    const kindDir = dirname(file);
    const versionDir = dirname(kindDir);
    const group = basename(dirname(versionDir));
    const apiVersion = `${group}/${basename(versionDir)}`;
    const kind = basename(kindDir);
    return { file, apiVersion, kind, name: selectorName({ apiVersion, kind }) };
  });
}

/**
 * The examples that `--examples` values select: `all`, or kinds (`Rollout`, `ScaledObject.keda.sh`;
 * comma-separated or repeated). Throws KindSelectorError for a name that matches no example.
 */
export function selectExamples(values: readonly string[], root?: string): ShippedExample[] {
  const examples = shippedExamples(root);
  const texts = values
    .flatMap((value) => value.split(','))
    .map((text) => text.trim())
    .filter(Boolean);
  if (texts.some((text) => text.toLowerCase() === 'all')) return examples;
  const selectors: KindSelector[] = parseSelectors(texts, examples, 'shipped example');
  return examples.filter((example) => selectors.some((selector) => selects(selector, example)));
}
