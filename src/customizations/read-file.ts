// One customization file from its bytes to plain data: read safely (safe-read.ts), parsed and each script
// compile-checked. Runs on the load worker in the server and the CLI (load-worker.ts), in-process where a
// test passes its own compiler; what it returns is plain data, so it crosses threads as it is.
import { createHash } from 'node:crypto';
import type { FailedCustomization } from '../interpreter/registry.ts';
import type { Operation } from '../interpreter/types.ts';
import { CUSTOMIZATION_RULES } from '../lua/operations.ts';
import type { Customization, ScriptPosition } from './parse.ts';
import { foldingHint, parseCustomizationFile, scriptLineText } from './parse.ts';
import { readCustomizationFile, RefusedFile, type FoundFile } from './safe-read.ts';

export interface Compiler {
  compileCheck(script: string): void;
}

export interface FileOutcome {
  customizations: Customization[];
  problems: string[];
  warnings: string[];
  failed: FailedCustomization[];
  /** sha256 of the bytes read, or of the reason none were: equal for an unchanged file (watch.ts). */
  hash: string;
}

/** Reads, parses and compile-checks one file; never throws for anything the file holds. */
export async function loadFile(file: FoundFile, compiler: Compiler): Promise<FileOutcome> {
  let bytes: Buffer;
  try {
    bytes = await readCustomizationFile(file);
  } catch (error) {
    const message = error instanceof RefusedFile ? error.message : `cannot read: ${String(error)}`;
    return { customizations: [], problems: [message], warnings: [], failed: [], hash: `refused:${message}` };
  }
  const hash = createHash('sha256').update(bytes).digest('hex');
  return { ...outcomeOf(file.path, bytes.toString('utf8'), compiler), hash };
}

/** Parses and compile-checks the text of `file`: its customizations, or the problems that reject the whole file. */
export function outcomeOf(file: string, text: string, compiler: Compiler): Omit<FileOutcome, 'hash'> {
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
      const error = compileError(compiler, script, ric.positions?.[field]);
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
  compiler: Compiler,
  script: string,
  position?: ScriptPosition,
  /** Named in the line ("FILE line 23"); without it, "line 23 of the file". */
  file?: string,
): string | undefined {
  try {
    compiler.compileCheck(script);
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
