// Loading RIC files into KindInterpreters: find, parse, compile-check, merge, build.
import { readFileSync } from 'node:fs';
import type { Customization } from './customizations.ts';
import { CUSTOMIZATION_RULES, parseCustomizationFile } from './customizations.ts';
import { findBuiltinCustomizationFiles, findCustomizationFiles } from './files.ts';
import type { CustomizationRuntime, LuaInterpreterOptions, LuaKindInterpreter } from './interpreter.ts';
import { createLuaInterpreter } from './interpreter.ts';
import { mergeCustomizations } from './merge.ts';

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
  /** Problems that did not stop loading (a script shadowed by another RIC for the same target). */
  warnings: LoadProblem[];
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

/** Loads the built-in customizations: every `interpreters/**\/customizations.yaml` outside `testdata`. */
export async function loadBuiltinCustomizations(
  options: LoadOptions & { root?: string },
): Promise<LoadResult> {
  return loadFiles(findBuiltinCustomizationFiles(options.root), options);
}

async function loadFiles(files: string[], options: LoadOptions): Promise<LoadResult> {
  const errors: LoadProblem[] = [];
  const accepted: Customization[] = [];
  let rejectedFiles = 0;

  for (const file of files) {
    // Compiling is synchronous (a few ms per file); yield between files so a reload in a running server
    // delays requests by one file's work at most instead of the whole set's.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const { customizations, problems } = readFile(file, options.runtime);
    if (problems.length > 0) {
      rejectedFiles++;
      for (const message of problems) errors.push({ file, message });
    } else {
      accepted.push(...customizations);
    }
  }

  const { targets, warnings } = mergeCustomizations(accepted);
  const interpreters = targets.map((target) => createLuaInterpreter(target, options.runtime, options));
  const scripts = targets.reduce((n, t) => n + Object.keys(t.rules).length + t.dependencies.length, 0);
  return {
    interpreters,
    errors,
    warnings,
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

function readFile(file: string, runtime: CustomizationRuntime): { customizations: Customization[]; problems: string[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { customizations: [], problems: [`cannot read: ${(err as Error).message}`] };
  }
  const customizations: Customization[] = [];
  const problems: string[] = [];
  for (const doc of parseCustomizationFile(text, file)) {
    const label = `document ${doc.document}${doc.name ? ` (${doc.name})` : ''}`;
    if (!doc.customization) {
      problems.push(`${label}: ${doc.error}`);
      continue;
    }
    for (const { field, functionName } of CUSTOMIZATION_RULES) {
      const script = doc.customization.scripts[field];
      if (!script) continue;
      const error = compileError(runtime, script);
      if (error !== undefined) problems.push(`${label}: ${field} (${functionName}): ${error}`);
    }
    customizations.push(doc.customization);
  }
  return { customizations, problems };
}

/** The compile error message of a script, or undefined when it compiles. */
export function compileError(runtime: Pick<CustomizationRuntime, 'compileCheck'>, script: string): string | undefined {
  try {
    runtime.compileCheck(script);
    return undefined;
  } catch (err) {
    const e = err as { luaMessage?: unknown; line?: unknown; message?: unknown };
    if (typeof e.luaMessage === 'string') {
      return typeof e.line === 'number' && e.line > 0 ? `line ${e.line}: ${e.luaMessage}` : e.luaMessage;
    }
    return String(e.message ?? err).trim();
  }
}
