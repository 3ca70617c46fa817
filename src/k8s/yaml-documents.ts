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
import { LineCounter, parseAllDocuments, visit, type Document, type YAMLError } from 'yaml';

export interface YamlDocument {
  /** 1-based position in the file. */
  document: number;
  /** The document's value (null or undefined for an empty document); absent when it has an error. */
  value?: unknown;
  /** The first error of a document neither parser accepts: "line L, column C: what: \"the line\"". */
  error?: string;
  /** The parsed document with source positions, when the `yaml` package accepted it (not the js-yaml fallback). */
  node?: Document.Parsed;
}

export interface YamlReadOptions {
  /** Alias expansion limit (a billion-laughs guard; `yaml`'s option of the same name). */
  maxAliasCount?: number;
}

/** Source text → 1-based line numbers, for messages that point into a file. */
export interface LinePositions {
  lineOf(offset: number): number;
}

export function readYamlDocuments(text: string, options: YamlReadOptions = {}): YamlDocument[] {
  return readYamlDocumentsWithLines(text, options).documents.map(({ node: _node, ...document }) => document);
}

/** As readYamlDocuments, plus the line of any source offset (of a document's `node`). */
export function readYamlDocumentsWithLines(text: string, options: YamlReadOptions = {}): { documents: YamlDocument[]; lines: LinePositions } {
  const maxAliasCount = options.maxAliasCount ?? 100;
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { uniqueKeys: false, lineCounter }).map((doc, index): YamlDocument => {
    const document = index + 1;
    if (doc.errors.length === 0) {
      try {
        return { document, value: doc.toJS({ maxAliasCount }), node: doc };
      } catch (error) {
        return { document, error: firstLine((error as Error).message) };
      }
    }
    const refused = { document, error: describeYamlError(doc.errors[0]!, text) };
    if (hasAliases(doc)) return refused;
    const [start, , end] = doc.range;
    try {
      // json: true keeps the last of duplicate keys, as above.
      return { document, value: load(text.slice(start, end), { schema: CORE_SCHEMA, json: true }) };
    } catch {
      return refused;
    }
  });
  return { documents, lines: { lineOf: (offset) => lineCounter.linePos(offset).line } };
}

/**
 * "line 3, column 1: All mapping items must start at the same column: \" baz: 1\"": the `yaml`
 * package's message ends in a colon followed by a multi-line excerpt; one line with the offending source
 * line quoted reads better in a report or a log.
 */
export function describeYamlError(error: YAMLError, text: string): string {
  const position = error.linePos?.[0];
  const headline = firstLine(error.message).replace(/ at line \d+, column \d+:?$/, '');
  if (!position) return headline;
  const lines = text.split('\n', position.line).map((line) => line.replace(/\r$/, ''));
  // An error found at the end of the input (an unclosed bracket or quote) points at a blank line: quote
  // the last line with text before it instead.
  let line = position.line;
  while (line > 1 && (lines[line - 1] ?? '').trim() === '') line--;
  const source = lines[line - 1] ?? '';
  const shown = JSON.stringify(source.length > 120 ? `${source.slice(0, 117)}...` : source);
  return line === position.line ? `line ${line}, column ${position.col}: ${headline}: ${shown}` : `line ${line}: ${headline}: ${shown}`;
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
