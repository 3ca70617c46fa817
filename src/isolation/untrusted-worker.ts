// The code each worker thread of the pool runs: Lua customization calls (with their own fengari states
// and compile cache) and state-preservation JSONPath. Results travel back as JSON text no longer than
// MAX_RESULT_BYTES (a dependency list: MAX_DEPENDENCY_BYTES), and an object a script returns travels as
// its patch against the call's object, no longer than MAX_PATCH_BYTES, so a huge result ends here (as an
// error, or as this worker's out-of-memory) and never reaches the main thread's heap; error messages are
// cut to a few KiB here too.
import { parentPort, workerData } from 'node:worker_threads';
import { getHeapStatistics } from 'node:v8';
import type { StatePreservationRule } from '../interpreter/types.ts';
import { dependencyBoundProblem } from '../interpreter/answer-limits.ts';
import { LuaScriptError, MAX_LUA_MESSAGE_LENGTH } from '../lua/errors.ts';
import { argumentsFromRequest, LUA_OPERATIONS, type LuaArgs, type LuaOperation, type RequestField } from '../lua/operations.ts';
import { LuaRuntime } from '../lua/runtime.ts';
import { evaluatePreservation } from '../preservation/evaluate.ts';
import { clip } from '../protocol/wire.ts';
import { diffText, MAX_PATCH_BYTES, PatchTooLargeError } from '../protocol/patch.ts';
import {
  MAX_PRINT_LINES,
  MAX_PRINT_LINE_CHARS,
  MAX_RESULT_BYTES,
  OBJECT_OPERATIONS,
  frame,
  unframe,
  type UntrustedWorkerData,
  type WorkerReply,
  type WorkerRequest,
} from './protocol.ts';

const port = parentPort!;
const { memoryLimitBytes } = (workerData as { data: UntrustedWorkerData }).data;
const runtime = new LuaRuntime({ poolSize: 1, memoryLimitMb: memoryLimitBytes / 1048576 });

function idleBytes(): number {
  const heap = getHeapStatistics();
  return heap.used_heap_size + heap.external_memory;
}

function encode(value: unknown, operation: string | undefined): string {
  const json = JSON.stringify(value ?? null);
  if (operation === 'InterpretDependency') {
    const problem = dependencyBoundProblem(0, json.length);
    if (problem) throw new LuaScriptError(`the result has ${problem}`, { functionName: 'GetDependencies' });
  }
  if (json.length > MAX_RESULT_BYTES) {
    const problem = `the result is ${json.length} bytes of JSON, over the limit of ${MAX_RESULT_BYTES}`;
    // A script's result is the script's error (its customization is named); preservation's is not a script's.
    if (operation === undefined) throw new Error(problem);
    throw new LuaScriptError(problem, { functionName: LUA_OPERATIONS[operation as LuaOperation].functionName });
  }
  return json;
}

/** The patch from the call's object (as Go decodes it: patch.ts) to the object the script returned. */
function patchOf(request: Extract<WorkerRequest, { type: 'lua' }>, original: unknown, value: unknown): string {
  try {
    return diffText(original as object, value as object, MAX_PATCH_BYTES);
  } catch (error) {
    if (!(error instanceof PatchTooLargeError)) throw error;
    const { functionName } = LUA_OPERATIONS[request.operation];
    throw new LuaScriptError(`the result differs from the object by a patch over the limit of ${MAX_PATCH_BYTES} bytes of JSON`, { functionName });
  }
}

/** The scripts this worker was sent, by id (the pool sends each one once per worker). */
const scripts = new Map<number, string>();

async function runLua(request: Extract<WorkerRequest, { type: 'lua' }>, payload: string, prints: string[]): Promise<{ value: unknown; original: unknown }> {
  if (request.onceReset) scripts.clear();
  if (request.script !== undefined) scripts.set(request.scriptId, request.script);
  const script = scripts.get(request.scriptId);
  if (script === undefined) throw new Error(`script ${request.scriptId} was never sent to this worker`);
  const onPrint = (line: string) => {
    if (prints.length < MAX_PRINT_LINES) prints.push(line.length > MAX_PRINT_LINE_CHARS ? `${line.slice(0, MAX_PRINT_LINE_CHARS)}…` : line);
  };
  const options = { timeoutMs: request.timeoutMs, onPrint };
  const args = request.fromRequest
    ? argumentsFromRequest(request.operation, (JSON.parse(payload) as { request: Record<RequestField, unknown> }).request)
    : (JSON.parse(payload) as unknown[]);
  const value = await runtime.call(request.operation, script, args as LuaArgs<LuaOperation>, options);
  return { value, original: args[0] };
}

/** Runs a task; the answer is its header and the result's JSON text (empty for an error). */
async function handle(request: WorkerRequest, payload: string): Promise<[WorkerReply, string]> {
  const prints: string[] = [];
  const missesBefore = runtime.stats().cacheMisses;
  try {
    let json: string;
    let patch: true | undefined;
    if (request.type === 'lua') {
      const { value, original } = await runLua(request, payload, prints);
      if (OBJECT_OPERATIONS.has(request.operation)) {
        json = patchOf(request, original, value);
        patch = true;
      } else {
        json = encode(value, request.operation);
      }
    } else {
      json = encode(evaluatePreservation(request.rules as StatePreservationRule[], JSON.parse(payload) as unknown), undefined);
    }
    const compiled = runtime.stats().cacheMisses > missesBefore;
    return [{ id: request.id, ok: true, patch, prints, compiled, idleBytes: idleBytes() }, json];
  } catch (error) {
    const e = error as Error & { luaMessage?: string; functionName?: string; line?: number; timeout?: boolean };
    const compiled = runtime.stats().cacheMisses > missesBefore;
    const reply: WorkerReply = {
      id: request.id,
      ok: false,
      error: {
        // A Lua error's text travels once, as luaMessage (its message only repeats it with the function and
        // line), cut by LuaScriptError; any other error's text is cut here, so a few KiB cross at most.
        message: e?.luaMessage === undefined ? clip(String(e?.message ?? error), MAX_LUA_MESSAGE_LENGTH) : '',
        luaMessage: e?.luaMessage,
        functionName: e?.functionName,
        line: e?.line,
        timeout: e?.timeout,
      },
      prints,
      compiled,
      idleBytes: idleBytes(),
    };
    return [reply, ''];
  }
}

port.on('message', (text: string) => {
  const { header, payload } = unframe(text);
  void handle(header as WorkerRequest, payload).then(([reply, json]) => port.postMessage(frame(reply, json)));
});
port.postMessage(frame({ ready: true, idleBytes: idleBytes() }));
