// Loading RIC files into KindInterpreters: find, parse, compile-check, merge, build.
import { readFileSync } from 'node:fs';
import type { FailedCustomization } from '../interpreter/registry.ts';
import type { Customization, ScriptPosition } from './parse.ts';
import { foldingHint, parseCustomizationFile, scriptLineText } from './parse.ts';
import { CUSTOMIZATION_RULES } from '../lua/operations.ts';
import { findBuiltinCustomizationFiles, findCustomizationFiles } from './files.ts';
import type { CustomizationRuntime, LuaInterpreterOptions, LuaKindInterpreter } from './interpreter.ts';
import { createLuaInterpreter } from './interpreter.ts';
import { mergeCustomizations } from './merge.ts';
import type { Operation } from '../interpreter/types.ts';

export interface LoadProblem {
  file: string;
  message: string;
}

/** Counts for metrics and /readyz. */
export interface LoadSummary {
  /** Files read (good or bad). */
  files: number;
  /** RIC objects in use (from files without errors). */
  customizations: number;
  /** Distinct apiVersion+kind targets served. */
  targets: number;
  /** Non-empty scripts in use. */
  scripts: number;
  /** Entries in `errors`. */
  errors: number;
  /** Files rejected because of an error. */
  rejectedFiles: number;
  warnings: number;
}

export interface LoadResult {
  interpreters: LuaKindInterpreter[];
  /** Problems that made a file unusable; message names the document (1-based) and RIC. */
  errors: LoadProblem[];
  /** Problems that did not stop loading (a script shadowed by another RIC for the same target, an object of another kind skipped). */
  warnings: LoadProblem[];
  /**
   * The targets of the customizations in rejected files, as far as they could be read: a call for one
   * of them answers "customization X failed to load" instead of "not served" (registry.ts).
   */
  failed: FailedCustomization[];
  /** Every file read, sorted. */
  files: string[];
  summary: LoadSummary;
}

export interface LoadOptions extends LuaInterpreterOptions {
  runtime: CustomizationRuntime;
}

/**
 * Loads RICs from files and directories (see findCustomizationFiles). A file with any error (YAML, a
 * document that is not a valid RIC, a script that does not compile) is reported and none of its
 * customizations are used; the other files still load. A path that does not exist is an error.
 */
export async function loadCustomizations(paths: readonly string[], options: LoadOptions): Promise<LoadResult> {
  const { files, missing } = findCustomizationFiles(paths);
  const result = await loadFiles(files, options);
  for (const path of missing) result.errors.unshift({ file: path, message: 'no such file or directory' });
  result.summary.errors = result.errors.length;
  return result;
}

/**
 * Loads the built-in customizations: `files`, or every `interpreters/**\/customizations.yaml` outside
 * `testdata` (the shipped examples, src/customizations/examples.ts, choose which).
 */
export async function loadBuiltinCustomizations(options: LoadOptions & { root?: string; files?: readonly string[] }): Promise<LoadResult> {
  return loadFiles(options.files ? [...options.files] : findBuiltinCustomizationFiles(options.root), options);
}

async function loadFiles(files: string[], options: LoadOptions): Promise<LoadResult> {
  const errors: LoadProblem[] = [];
  const skipped: LoadProblem[] = [];
  const failed: FailedCustomization[] = [];
  const accepted: Customization[] = [];
  let rejectedFiles = 0;

  for (const file of files) {
    // Compiling is synchronous (a few ms per file); yield between files so a reload in a running server
    // delays requests by one file's work at most instead of the whole set's.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const { customizations, problems, warnings: fileWarnings, failed: fileFailed } = readFile(file, options.runtime);
    for (const message of fileWarnings) skipped.push({ file, message });
    if (problems.length > 0) {
      rejectedFiles++;
      for (const message of problems) errors.push({ file, message });
      failed.push(...fileFailed);
    } else {
      accepted.push(...customizations);
    }
  }

  const merged = mergeCustomizations(accepted);
  const { targets } = merged;
  const warnings = [...skipped, ...merged.warnings];
  const interpreters = targets.map((target) => createLuaInterpreter(target, options.runtime, options));
  const scripts = targets.reduce((n, t) => n + Object.keys(t.rules).length + t.dependencies.length, 0);
  return {
    interpreters,
    errors,
    warnings,
    failed,
    files,
    summary: {
      files: files.length,
      customizations: accepted.length,
      targets: targets.length,
      scripts,
      errors: errors.length,
      rejectedFiles,
      warnings: warnings.length,
    },
  };
}

interface FileOutcome {
  customizations: Customization[];
  problems: string[];
  warnings: string[];
  failed: FailedCustomization[];
}

function readFile(file: string, runtime: CustomizationRuntime): FileOutcome {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { customizations: [], problems: [`cannot read: ${(err as Error).message}`], warnings: [], failed: [] };
  }
  const customizations: Customization[] = [];
  const problems: string[] = [];
  const warnings: string[] = [];
  // Per document: its target and operations (when readable) and its own first problem, for FailedCustomization.
  const documents: Array<{
    label: string;
    name?: string;
    document: number;
    target?: { apiVersion: string; kind: string };
    operations: Operation[];
    problem?: string;
  }> = [];
  for (const doc of parseCustomizationFile(text, file)) {
    const label = `document ${doc.document}${doc.name ? ` (${doc.name})` : ''}`;
    if (doc.skipped) {
      warnings.push(`${label}: ${doc.skipped}`);
      continue;
    }
    if (!doc.customization) {
      problems.push(`${label}: ${doc.error}`);
      documents.push({ label, name: doc.name, document: doc.document, target: doc.target, operations: doc.operations ?? [], problem: doc.error });
      continue;
    }
    const ric = doc.customization;
    let problem: string | undefined;
    for (const { field, functionName } of CUSTOMIZATION_RULES) {
      const script = ric.scripts[field];
      if (!script) continue;
      const error = compileError(runtime, script, ric.positions?.[field]);
      if (error !== undefined) {
        problems.push(`${label}: ${field} (${functionName}): ${error}`);
        problem ??= `${field} (${functionName}): ${error}`;
      }
    }
    const operations = CUSTOMIZATION_RULES.filter(({ field }) => ric.scripts[field]).map(({ operation }) => operation);
    documents.push({ label, name: ric.name, document: doc.document, target: ric.target, operations, problem });
    customizations.push(ric);
  }
  const failed: FailedCustomization[] = [];
  if (problems.length > 0) {
    const firstBad = documents.find((d) => d.problem !== undefined);
    for (const d of documents) {
      if (!d.target) continue;
      failed.push({
        ...d.target,
        operations: d.operations,
        ...(d.name ? { customization: d.name } : {}),
        file,
        document: d.document,
        // The document's own problem, or the one that took the whole file down; never the file's text.
        message: d.problem ?? `the file was not loaded because of ${firstBad?.label ?? 'an earlier error'}`,
      });
    }
  }
  return { customizations, problems, warnings, failed };
}

/**
 * The compile error message of a script, or undefined when it compiles: "script line 2 (line 14 of the
 * file): <Lua message>", with a hint when `luaScript: >` folded the script's lines together.
 */
export function compileError(
  runtime: Pick<CustomizationRuntime, 'compileCheck'>,
  script: string,
  position?: ScriptPosition,
  /** Named in the line ("FILE line 23"); without it, "line 23 of the file". */
  file?: string,
): string | undefined {
  try {
    runtime.compileCheck(script);
    return undefined;
  } catch (err) {
    const e = err as { luaMessage?: unknown; line?: unknown; message?: unknown };
    if (typeof e.luaMessage === 'string') {
      const where = typeof e.line === 'number' && e.line > 0 ? `${scriptLineText(e.line, position, file)}: ` : '';
      return `${where}${e.luaMessage}${foldingHint(position)}`;
    }
    return `${String(e.message ?? err).trim()}${foldingHint(position)}`;
  }
}
