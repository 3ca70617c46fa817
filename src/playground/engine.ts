// What the playground computes: every operation for one set of inputs, through the server's own
// registry, dispatch, precedence and worker pool (createRegistry), with an optional customization
// pasted in the page layered on top as the user's own (a --customizations file would be), and, when
// Karmada's thirdparty customizations are given, Karmada's built-in answer beside ours.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { stringify } from 'yaml';
import { builtinInterpreters } from '../../interpreters/index.ts';
import { loadCustomizations, type LoadResult } from '../customizations/loader.ts';
import type { LuaKindInterpreter } from '../customizations/interpreter.ts';
import { interpret, type InterpretInput, type InterpretOutcome } from '../interpreter/dispatch.ts';
import { statusReflector } from '../interpreter/reflect.ts';
import { Registry, type LayerName } from '../interpreter/registry.ts';
import type { LoadedRegistry } from '../interpreter/setup.ts';
import { InterpreterError, OPERATIONS, type AggregatedStatusItem, type KObject, type Operation } from '../interpreter/types.ts';
import { readYamlDocuments } from '../k8s/yaml-documents.ts';
import { PreservationInputError, preserveForObject, type PreservationResult } from '../preservation/index.ts';
import { diff, type PatchOperation } from '../protocol/patch.ts';
import { resultsOf, type CaseResults } from '../testcases/cases.ts';
import type { OperationAnswer as WireAnswer, Problem, RunRequest, RunResponse as WireResponse } from './api.ts';
import { curlCommand, exportTestdata } from './cases.ts';

/** The name a pasted customization goes by in messages: its own line numbers refer to the editor's text. */
export const EDITOR_FILE = 'customization.yaml';

/** How many pasted customizations stay loaded (each edit is a new text; going back is common). */
const LOADED_TEXTS = 16;

export type { Problem, RunRequest } from './api.ts';

/** An operation's answer with what the server keeps beside the page's fields (results and patch, for export and tests). */
export interface OperationAnswer extends WireAnswer {
  operation: Operation;
  layer?: LayerName;
  /** Named as in Karmada's test cases (replica, requires, revised, retained, aggregatedStatus, ...). */
  results?: CaseResults;
  diff?: PatchOperation[];
  karmada?: WireAnswer['karmada'] & { results?: CaseResults };
}

export type RunResponse = WireResponse<OperationAnswer>;

const LAYER_TEXT: Record<LayerName, string> = {
  'user-lua': 'your customization',
  'builtin-ts': 'the TypeScript module',
  'builtin-lua': 'the shipped example',
};

export interface EngineOptions {
  loaded: LoadedRegistry;
  /** Karmada's thirdparty customizations loaded on the same worker pool, when given. */
  karmada?: LoadResult;
  luaTimeoutMs?: number;
}

interface PastedLoad {
  result: LoadResult;
  errors: Problem[];
  warnings: Problem[];
}

export class PlaygroundEngine {
  private readonly loaded: LoadedRegistry;
  private readonly karmadaRegistry?: Registry;
  private readonly luaTimeoutMs?: number;
  private readonly pasted = new Map<string, Promise<PastedLoad>>();

  constructor(options: EngineOptions) {
    this.loaded = options.loaded;
    this.luaTimeoutMs = options.luaTimeoutMs;
    if (options.karmada) this.karmadaRegistry = new Registry({ 'user-lua': options.karmada.interpreters });
  }

  get hasKarmada(): boolean {
    return this.karmadaRegistry !== undefined;
  }

  /** The registry for a run: the server's, with the pasted customization's interpreters first in the user layer. */
  async registryFor(customization: string | undefined): Promise<{ registry: Registry; pasted?: PastedLoad }> {
    if (!customization || customization.trim() === '') return { registry: this.loaded.registry };
    const pasted = await this.loadPasted(customization);
    const user = this.loaded.userLua;
    const registry = new Registry({
      'user-lua': [...pasted.result.interpreters, ...(user?.interpreters ?? [])],
      'builtin-ts': builtinInterpreters,
      'builtin-lua': this.loaded.builtinLua.interpreters,
    });
    registry.setFailed([...pasted.result.failed, ...(user?.failed ?? [])]);
    return { registry, pasted };
  }

  async run(request: RunRequest): Promise<RunResponse> {
    return (await this.evaluate(request)).response;
  }

  /** What is on screen as a Karmada testdata file and, per operation, a curl command. */
  async exportCase(request: RunRequest): Promise<{ testdata: string; curl: Partial<Record<Operation, string>>; operations: number }> {
    const { response, inputs, items } = await this.evaluate(request);
    const given = Object.fromEntries(Object.entries(inputs).filter((entry): entry is [Operation, InterpretInput] => typeof entry[1] !== 'string'));
    const curl = Object.fromEntries(Object.entries(given).map(([operation, input]) => [operation, curlCommand(input)]));
    const testdata = exportTestdata(given, response, items);
    return { testdata, curl, operations: response.operations.filter((op) => op.ok).length };
  }

  private async evaluate(
    request: RunRequest,
  ): Promise<{ response: RunResponse; inputs: Record<Operation, InterpretInput | string>; items: AggregatedStatusItem[] }> {
    const { registry, pasted } = await this.registryFor(request.customization);
    const inputErrors: RunResponse['inputErrors'] = {};
    const template = readObject(request.template, 'the resource template');
    if ('problem' in template) inputErrors.template = template.problem;
    const memberText = request.member ?? '';
    const member = memberText.trim() === '' ? undefined : readObject(memberText, 'the member-cluster object');
    if (member && 'problem' in member) inputErrors.member = member.problem;
    const items: AggregatedStatusItem[] = [];
    const itemProblems = (request.statusItems ?? []).map((text, index) => {
      const item = readObject(text, `status item ${index + 1}`);
      if ('problem' in item) return item.problem;
      items.push(item.value as AggregatedStatusItem);
      return null;
    });
    if (itemProblems.some((p) => p !== null)) inputErrors.statusItems = itemProblems;

    const object = 'value' in template ? template.value : undefined;
    const observed = member && 'value' in member ? member.value : undefined;
    const apiVersion = String(object?.apiVersion ?? observed?.apiVersion ?? '');
    const kind = String(object?.kind ?? observed?.kind ?? '');
    const response: RunResponse = { apiVersion, kind, inputErrors, operations: [] };
    if (pasted) {
      response.customization = {
        errors: pasted.errors,
        warnings: pasted.warnings,
        targets: pasted.result.interpreters.flatMap((i) => i.targets.map((t) => ({ apiVersion: t.apiVersion, kind: t.kind }))),
      };
    }
    const inputs = operationInputs({ apiVersion, kind, object, observed, items, replicas: request.replicas ?? 1, itemsBroken: !!inputErrors.statusItems });
    response.operations = await Promise.all(
      OPERATIONS.map(async (operation) => {
        const input = inputs[operation];
        if (typeof input === 'string') return { operation, ok: false, code: 400, message: input, ms: 0 };
        const answer = await this.answer(registry, input, pasted !== undefined);
        if (this.karmadaRegistry) {
          const theirs = await interpret(this.karmadaRegistry, input);
          const karmadaResults = theirs.ok ? resultsOf(theirs.result) : undefined;
          answer.karmada = theirs.ok
            ? { ok: true, results: karmadaResults, text: yamlText(karmadaResults), same: answer.ok && isDeepStrictEqual(answer.results, karmadaResults) }
            : // No script for it (404/501): Karmada falls back to its native interpreter, which has none for these kinds either.
              { ok: false, message: theirs.message, same: !answer.ok, noScript: theirs.code === 404 || theirs.code === 501 };
        }
        return answer;
      }),
    );
    return { response, inputs, items };
  }

  private async answer(registry: Registry, input: InterpretInput, pasted: boolean): Promise<OperationAnswer> {
    const operation = input.operation as Operation;
    const started = performance.now();
    const outcome: InterpretOutcome = await interpret(registry, input);
    const ms = Math.round((performance.now() - started) * 100) / 100;
    if (!outcome.ok) {
      const message = pasted ? editorMessage(outcome.message) : outcome.message;
      return { operation, ok: false, code: outcome.code, message, line: pasted ? editorLine(outcome.message) : undefined, ms };
    }
    const resolved = registry.resolve(input.apiVersion, input.kind, operation);
    const interpreter = resolved?.interpreter as Partial<LuaKindInterpreter> | undefined;
    const results = resultsOf(outcome.result);
    const answer: OperationAnswer = {
      operation,
      ok: true,
      layer: outcome.layer,
      answeredBy: answeredBy(outcome, interpreter),
      results,
      text: yamlText(results),
      ms,
    };
    if ('object' in outcome.result) {
      answer.before = yamlText(input.object);
      answer.text = yamlText(outcome.result.object);
      answer.diff = diff(input.object, outcome.result.object);
    }
    return answer;
  }

  /** POST /preserve's answer for rules written beside the member object, with the pasted customization's InterpretStatus. */
  async preserve(customization: string | undefined, rulesText: string, memberText: string): Promise<PreservationResult | { error: string }> {
    const { registry } = await this.registryFor(customization);
    const rules = readYamlDocuments(rulesText);
    if (rules[0]?.error) return { error: `the rules: ${rules[0].error}` };
    const member = readObject(memberText, 'the member-cluster object');
    if ('problem' in member) return { error: member.problem.message };
    const value = rules[0]?.value;
    const input = Array.isArray(value) ? { rules: value } : { policy: value };
    try {
      return await preserveForObject({ ...input, observedObject: member.value }, statusReflector(registry), (r, status) =>
        this.loaded.untrusted.evaluatePreservation(r, status),
      );
    } catch (error) {
      if (error instanceof PreservationInputError || error instanceof InterpreterError) return { error: editorMessage(error.message) };
      return { error: (error as Error).message };
    }
  }

  /** Loads the editor's customization as a --customizations file would be, cached by its text. */
  private loadPasted(text: string): Promise<PastedLoad> {
    const cached = this.pasted.get(text);
    if (cached) {
      // Most recently used last, so the oldest is dropped first.
      this.pasted.delete(text);
      this.pasted.set(text, cached);
      return cached;
    }
    const loading = this.loadText(text);
    this.pasted.set(text, loading);
    loading.catch(() => this.pasted.delete(text));
    while (this.pasted.size > LOADED_TEXTS) this.pasted.delete(this.pasted.keys().next().value!);
    return loading;
  }

  private async loadText(text: string): Promise<PastedLoad> {
    const dir = await mkdtemp(join(tmpdir(), 'karmada-playground-'));
    const file = join(dir, EDITOR_FILE);
    try {
      await writeFile(file, text);
      // Read, parsed and compile-checked as the server loads --customizations (off the main thread
      // where the loader supports it); the scripts then run on the server's worker pool.
      const options = { runtime: this.loaded.untrusted, timeoutMs: this.luaTimeoutMs, offThread: true as const };
      const result = await loadCustomizations([file], options);
      const rename = (message: string) => editorMessage(message.split(file).join(EDITOR_FILE));
      for (const interpreter of result.interpreters) interpreter.files = interpreter.files.map(() => 'the editor');
      for (const failure of result.failed) failure.file = EDITOR_FILE;
      for (const failure of result.failed) failure.message = rename(failure.message);
      const problem = (p: { message: string }) => ({ message: rename(p.message), line: editorLine(rename(p.message)) });
      return { result, errors: result.errors.map(problem), warnings: result.warnings.map(problem) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** Which object each operation is given, as Karmada gives it: the template, or the member's object. */
function operationInputs(o: {
  apiVersion: string;
  kind: string;
  object?: KObject;
  observed?: KObject;
  items: AggregatedStatusItem[];
  replicas: number;
  itemsBroken: boolean;
}): Record<Operation, InterpretInput | string> {
  const base = { apiVersion: o.apiVersion, kind: o.kind };
  const onTemplate = (operation: Operation, extra: Partial<InterpretInput> = {}): InterpretInput | string =>
    o.object ? { ...base, operation, object: o.object, ...extra } : 'needs a valid resource template';
  const onMember = (operation: Operation): InterpretInput | string =>
    o.observed ? { ...base, operation, object: o.observed } : 'needs the member-cluster object';
  return {
    InterpretReplica: onTemplate('InterpretReplica'),
    ReviseReplica: onTemplate('ReviseReplica', { replicas: o.replicas }),
    Retain: o.observed ? onTemplate('Retain', { observedObject: o.observed }) : 'needs the member-cluster object',
    AggregateStatus: o.itemsBroken ? 'needs valid status items' : onTemplate('AggregateStatus', { aggregatedStatus: o.items }),
    InterpretStatus: onMember('InterpretStatus'),
    InterpretHealth: onMember('InterpretHealth'),
    InterpretDependency: onTemplate('InterpretDependency'),
    InterpretComponent: onTemplate('InterpretComponent'),
  };
}

/** One YAML/JSON object from an editor, or its problem with the line. */
export function readObject(text: string, what: string): { value: KObject } | { problem: Problem } {
  const docs = readYamlDocuments(text).filter((doc) => doc.error !== undefined || (doc.value !== null && doc.value !== undefined));
  const first = docs[0];
  if (!first) return { problem: { message: `${what} is empty` } };
  if (first.error !== undefined) {
    const line = /^line (\d+)/.exec(first.error)?.[1];
    return { problem: { message: `${what}: ${first.error}`, ...(line ? { line: Number(line) } : {}) } };
  }
  if (docs.length > 1) return { problem: { message: `${what}: expected one document, found ${docs.length}` } };
  if (typeof first.value !== 'object' || Array.isArray(first.value)) return { problem: { message: `${what} must be an object` } };
  return { value: first.value as KObject };
}

/** Messages name the editor's text, not the temporary file it was loaded from. */
function editorMessage(message: string): string {
  return message.replace(/\/[^\s:()]*karmada-playground-[^/\s]+\//g, '');
}

/** The editor line a message points at: "customization.yaml line 23", or "line 3, column 1" of the file. */
export function editorLine(message: string): number | undefined {
  const named = new RegExp(`${EDITOR_FILE.replace('.', '\\.')} line (\\d+)`).exec(message) ?? /line (\d+) of the file/.exec(message);
  if (named) return Number(named[1]);
  const yaml = /invalid YAML: line (\d+)/.exec(message);
  return yaml ? Number(yaml[1]) : undefined;
}

function answeredBy(outcome: Extract<InterpretOutcome, { ok: true }>, interpreter: Partial<LuaKindInterpreter> | undefined): string {
  const files = interpreter?.files?.length ? ` (${interpreter.files.join(', ')})` : '';
  const name = interpreter?.customizations?.length ? interpreter.customizations.join(', ') : outcome.implementation;
  return `${LAYER_TEXT[outcome.layer]} ${name}${files}`;
}

/** YAML as the page shows it. */
export function yamlText(value: unknown): string {
  return stringify(value ?? null, { lineWidth: 0 });
}
