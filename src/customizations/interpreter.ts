// One KindInterpreter per merged RIC target: each method runs the winning script on the Lua runtime and
// turns script failures into InterpreterError(500) naming the customization, function and line.
import type { DependentObjectReference, KindInterpreter, Operation } from '../interpreter/types.ts';
import { InterpreterError } from '../interpreter/types.ts';
import { dependencyBoundProblem } from '../interpreter/answer-limits.ts';
import { currentRequestContext, type RequestContext } from '../interpreter/context.ts';
import { foldingHint, scriptLineText } from './parse.ts';
import { CUSTOMIZATION_RULES, LUA_OPERATIONS, type LuaArgs, type LuaCallOptions, type LuaOperation, type LuaResult } from '../lua/operations.ts';
import type { MergedTarget, ScriptSource } from './merge.ts';
import { compareStrings } from './merge.ts';
import { CIRCUIT_OPEN_MESSAGE } from '../isolation/worker-pool.ts';

/**
 * What runs the scripts: src/isolation/untrusted-work.ts on worker threads (the server and the CLI), or
 * src/lua/runtime.ts `LuaRuntime` in-process (tests); tests also pass a small fake.
 */
export interface CustomizationRuntime {
  compileCheck(script: string): void;
  call<O extends LuaOperation>(operation: O, script: string, args: LuaArgs<O>, options?: LuaCallOptions): Promise<LuaResult<O>>;
}

/** Options for the interpreters built from customizations. */
export interface LuaInterpreterOptions {
  /** Per-call deadline; the runtime's default (1 s, as Karmada) when omitted. */
  timeoutMs?: number;
  /** Receives `print` output of scripts, with the context of the request the call was made for. */
  onPrint?: (line: string, source: { customization: string; functionName: string }, context: RequestContext | undefined) => void;
}

/** A KindInterpreter backed by RIC scripts, with what it was built from. */
export interface LuaKindInterpreter extends KindInterpreter {
  name: string;
  /** RIC names for this target, in merge order. */
  customizations: string[];
  files: string[];
  /** Operations this target serves (a field with a non-empty script). */
  operations: Operation[];
  /** Which customization answers each operation; InterpretDependency may list several. */
  sources: Partial<Record<Operation, string[]>>;
}

export function createLuaInterpreter(target: MergedTarget, runtime: CustomizationRuntime, options: LuaInterpreterOptions = {}): LuaKindInterpreter {
  const call = async <O extends LuaOperation>(source: ScriptSource, operation: O, args: LuaArgs<O>): Promise<LuaResult<O>> => {
    const onPrint = options.onPrint;
    const context = currentRequestContext();
    const functionName = LUA_OPERATIONS[operation].functionName;
    const callOptions: LuaCallOptions = {
      // The customization's name: its fair-share turn, and the name its breaker is reported by; the runtime
      // adds the script's identity, so a reload that changes the script is judged afresh (untrusted-work.ts).
      key: source.customization,
      timeoutMs: options.timeoutMs,
      onPrint: onPrint && ((line) => onPrint(line, { customization: source.customization, functionName }, context)),
      notAfter: context?.deadline,
      requestText: context?.requestText,
    };
    try {
      return await runtime.call(operation, source.script, args, callOptions);
    } catch (err) {
      throw toInterpreterError(err, source.customization, functionName, source);
    }
  };

  const interpreter: LuaKindInterpreter = {
    name: `lua:${target.customizations.join(',')}`,
    targets: [{ apiVersion: target.apiVersion, kind: target.kind }],
    customizations: [...target.customizations],
    files: [...target.files],
    operations: [],
    sources: {},
  };
  const methods = interpreter as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const { field, operation, method } of CUSTOMIZATION_RULES) {
    if (field === 'dependencyInterpretation') {
      if (target.dependencies.length === 0) continue;
      const scripts = [...target.dependencies];
      interpreter.getDependencies = async (obj) => {
        // As Karmada's ConfigurableInterpreter.GetDependencies: run every script in order, stop at the first
        // error, union the results.
        // The merged answer is bounded as a whole (one script's share already is, in its worker): past a bound,
        // a 500 naming it and the customizations merged so far.
        const all: DependentObjectReference[] = [];
        let bytes = 0;
        for (const [i, s] of scripts.entries()) {
          const refs = await call(s, 'InterpretDependency', [obj]);
          all.push(...refs);
          if (scripts.length > 1) bytes += JSON.stringify(refs).length;
          const problem = dependencyBoundProblem(all.length, bytes);
          if (problem) {
            const names = scripts.slice(0, i + 1).map((x) => x.customization);
            throw new InterpreterError(500, `customizations ${names.join(', ')}: GetDependencies: the merged answer has ${problem}`);
          }
        }
        return sortDependencies(uniqueDependencies(all));
      };
      interpreter.sources[operation] = scripts.map((s) => s.customization);
    } else {
      const source = target.rules[field];
      if (!source) continue;
      methods[method] = (...args: unknown[]) => call(source, operation, args as LuaArgs<typeof operation>);
      interpreter.sources[operation] = [source.customization];
    }
    interpreter.operations.push(operation);
  }
  return interpreter;
}

/** Duck-typed so this module does not import the VM; matches runtime.ts `LuaScriptError`. */
interface LuaScriptErrorShape {
  functionName?: string;
  line?: number;
  luaMessage: string;
  timeout: boolean;
  abandoned?: boolean;
}

function isLuaScriptError(err: unknown): err is Error & LuaScriptErrorShape {
  return err instanceof Error && typeof (err as Partial<LuaScriptErrorShape>).luaMessage === 'string';
}

/**
 * "customization <name>: <Function>: script line N (<file> line F): <lua message>" (the script line is
 * what Karmada reports; the file line is where to look); a deadline shows as
 * "timeout: ..." so it can be told apart from a script error, and a call not run because the
 * customization's calls kept timing out as "not run (circuit breaker): ..." (src/isolation/worker-pool.ts).
 * Errors that are neither Lua errors nor InterpreterErrors are bugs in our code: they pass through
 * unchanged so the dispatcher logs them as such.
 */
export function toInterpreterError(err: unknown, customization: string, functionName: string, source?: Pick<ScriptSource, 'file' | 'position'>): unknown {
  if (isLuaScriptError(err)) {
    // The exchange has answered 504 already (the request's deadline passed); say the same.
    if (err.abandoned) return new InterpreterError(504, `customization ${customization}: ${err.functionName ?? functionName}: ${err.luaMessage}`, 'timeout');
    const line = err.line !== undefined && err.line > 0 ? err.line : undefined;
    const where = line === undefined ? '' : `${scriptLineText(line, source?.position, source?.file)}: `;
    // An answer of an open circuit breaker is about the customization's timeouts, not its script's text.
    const hint = err.luaMessage.startsWith(CIRCUIT_OPEN_MESSAGE) ? '' : foldingHint(source?.position);
    const what = err.timeout ? `timeout: ${err.luaMessage}` : `${err.luaMessage}${hint}`;
    return new InterpreterError(
      500,
      `customization ${customization}: ${err.functionName ?? functionName}: ${where}${what}`,
      err.timeout ? 'timeout' : undefined,
    );
  }
  if (err instanceof InterpreterError) {
    return new InterpreterError(err.code, `customization ${customization}: ${functionName}: ${err.message}`);
  }
  return err;
}

/**
 * Karmada puts the references in a set (value equality for name-based references); we compare by value
 * for label-selector references as well, where Go's set compares selector pointers.
 */
export function uniqueDependencies(refs: readonly DependentObjectReference[]): DependentObjectReference[] {
  const seen = new Set<string>();
  const out: DependentObjectReference[] = [];
  for (const ref of refs) {
    const key = nameReferenceKey(ref) ?? canonicalJson(ref);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(ref);
  }
  return out;
}

/** By apiVersion, kind, namespace, name, as configurable.go; stable for equal keys. */
export function sortDependencies(refs: DependentObjectReference[]): DependentObjectReference[] {
  return refs.sort(
    (a, b) =>
      compareStrings(a.apiVersion ?? '', b.apiVersion ?? '') ||
      compareStrings(a.kind ?? '', b.kind ?? '') ||
      compareStrings(a.namespace ?? '', b.namespace ?? '') ||
      compareStrings(a.name ?? '', b.name ?? ''),
  );
}

/**
 * The set key of a reference by name (no labelSelector, string fields only: what the typed decoding gives
 * a script's name-based reference): equal exactly when canonicalJson is (a missing field and '' are the
 * same there), without building and sorting entries: the four texts joined by NUL (used only when none
 * contains one), never equal to a canonicalJson key (JSON escapes NUL, so those hold none). Undefined for
 * anything else.
 */
function nameReferenceKey(ref: DependentObjectReference): string | undefined {
  const fields = ref as unknown as Record<string, unknown>;
  for (const key in fields) {
    const value = fields[key];
    if (value === undefined || value === '') continue; // dropped by canonicalJson too
    if (key !== 'apiVersion' && key !== 'kind' && key !== 'namespace' && key !== 'name') return undefined;
    if (typeof value !== 'string' || value.includes('\u0000')) return undefined;
  }
  return `${ref.apiVersion ?? ''}\u0000${ref.kind ?? ''}\u0000${ref.namespace ?? ''}\u0000${ref.name ?? ''}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined && v !== '')
      .sort(([a], [b]) => compareStrings(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
