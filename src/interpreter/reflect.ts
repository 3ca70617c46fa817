// InterpretStatus as Karmada would run it for state preservation: our interpreter for the kind when
// one implements it, otherwise Karmada's native default, which reflects the whole .status.
import { interpret } from './dispatch.ts';
import type { Registry } from './registry.ts';
import { InterpreterError, type JsonObject, type KObject } from './types.ts';

export function statusReflector(registry: Registry) {
  return async (obj: KObject): Promise<JsonObject> => {
    const apiVersion = String(obj.apiVersion ?? '');
    const kind = String(obj.kind ?? '');
    if (!registry.resolve(apiVersion, kind, 'InterpretStatus')) {
      return (obj.status && typeof obj.status === 'object' ? obj.status : {}) as JsonObject;
    }
    const outcome = await interpret(registry, { apiVersion, kind, operation: 'InterpretStatus', object: obj });
    if (!outcome.ok) throw new InterpreterError(outcome.code, `InterpretStatus failed: ${outcome.message}`);
    if (outcome.result.operation !== 'InterpretStatus') throw new Error('unexpected result');
    return outcome.result.status;
  };
}
