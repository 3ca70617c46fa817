// YAML files as Kubernetes tooling reads them. Karmada's test harness, kubectl and the API server's
// YAML path all go through sigs.k8s.io/yaml, i.e. go-yaml v2, which accepts two things the `yaml`
// package (strict YAML 1.2) refuses:
// * a quoted scalar whose continuation lines are not indented past its key, as go-yaml itself and
//   people wrap long messages (Karmada's Flux Bucket testdata does): go-yaml only checks indentation for
//   plain scalars;
// * a key given twice in one mapping: go-yaml v2's Unmarshal keeps the last value.
// Duplicate keys are allowed through `yaml`'s own option. A document `yaml` still refuses is parsed
// again with js-yaml, which folds quoted scalars as go-yaml does (its core schema, so scalars resolve
// as they do here), unless it has aliases (js-yaml has no alias expansion limit); otherwise the first
// error of `yaml` is reported.
import { CORE_SCHEMA, load } from 'js-yaml';
import { parseAllDocuments, visit, type Document } from 'yaml';

export interface YamlDocument {
  /** 1-based position in the file. */
  document: number;
  /** The document's value (null or undefined for an empty document); absent when it has an error. */
  value?: unknown;
  /** The first error of a document neither parser accepts, first line only. */
  error?: string;
}

export interface YamlReadOptions {
  /** Alias expansion limit (a billion-laughs guard; `yaml`'s option of the same name). */
  maxAliasCount?: number;
}

export function readYamlDocuments(text: string, options: YamlReadOptions = {}): YamlDocument[] {
  const maxAliasCount = options.maxAliasCount ?? 100;
  return parseAllDocuments(text, { uniqueKeys: false }).map((doc, index) => {
    const document = index + 1;
    if (doc.errors.length === 0) {
      try {
        return { document, value: doc.toJS({ maxAliasCount }) };
      } catch (error) {
        return { document, error: firstLine((error as Error).message) };
      }
    }
    const refused = { document, error: firstLine(doc.errors[0]!.message) };
    if (hasAliases(doc)) return refused;
    const [start, , end] = doc.range;
    try {
      // json: true keeps the last of duplicate keys, as above.
      return { document, value: load(text.slice(start, end), { schema: CORE_SCHEMA, json: true }) };
    } catch {
      return refused;
    }
  });
}

function hasAliases(doc: Document.Parsed): boolean {
  let found = false;
  visit(doc, {
    Alias() {
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

function firstLine(message: string): string {
  return message.split('\n', 1)[0]!;
}
