// Runs a Lua customization call through lazy argument conversion (the runtime's) and through the eager
// reference (pushJson), and asserts both give the same result, error and printed lines.
import { expect } from 'vitest';
import type { AggregatedStatusItem, KObject } from '../../src/interpreter/types.ts';
import type { CustomizationField } from '../../src/lua/operations.ts';
import { LuaRuntime, type LuaRuntimeOptions } from '../../src/lua/runtime.ts';

export interface Input {
  label?: string;
  object: KObject;
  observed?: KObject;
  replicas?: number;
  items?: AggregatedStatusItem[];
}

export type Outcome =
  | { ok: true; value: unknown; json: string; prints: string[] }
  | { ok: false; error: { class: string; message: string; line?: number; functionName?: string; timeout?: boolean }; prints: string[] };

/** Table addresses in printed lines differ between two runtimes; nothing else may. */
const normalizePrint = (line: string) => line.replace(/table: 0x[0-9a-f]+/g, 'table: <address>');

async function outcome(runtime: LuaRuntime, field: CustomizationField, script: string, input: Input): Promise<Outcome> {
  const prints: string[] = [];
  const o = { onPrint: (line: string) => prints.push(normalizePrint(line)) };
  // Each runtime gets its own copy, so a conversion that mutated its input would show up as a difference.
  const { object, observed, items } = structuredClone({ object: input.object, observed: input.observed, items: input.items });
  try {
    let value: unknown;
    switch (field) {
      case 'retention':
        value = await runtime.call('Retain', script, [object, observed ?? object], o);
        break;
      case 'replicaResource':
        value = await runtime.call('InterpretReplica', script, [object], o);
        break;
      case 'componentResource':
        value = await runtime.call('InterpretComponent', script, [object], o);
        break;
      case 'replicaRevision':
        value = await runtime.call('ReviseReplica', script, [object, input.replicas ?? 0], o);
        break;
      case 'statusReflection':
        value = await runtime.call('InterpretStatus', script, [object], o);
        break;
      case 'statusAggregation':
        value = await runtime.call('AggregateStatus', script, [object, items], o);
        break;
      case 'healthInterpretation':
        value = await runtime.call('InterpretHealth', script, [object], o);
        break;
      case 'dependencyInterpretation':
        value = await runtime.call('InterpretDependency', script, [object], o);
        break;
    }
    expect({ object, observed, items }).toEqual({ object: input.object, observed: input.observed, items: input.items });
    return { ok: true, value, json: JSON.stringify(value), prints };
  } catch (err) {
    const e = err as Error & { line?: number; functionName?: string; timeout?: boolean };
    return { ok: false, error: { class: e.constructor.name, message: e.message, line: e.line, functionName: e.functionName, timeout: e.timeout }, prints };
  }
}

export class LazyEagerPair {
  readonly lazy: LuaRuntime;
  readonly eager: LuaRuntime;
  constructor(options: LuaRuntimeOptions = {}) {
    this.lazy = new LuaRuntime({ poolSize: 1, ...options });
    this.eager = new LuaRuntime({ poolSize: 1, ...options, eagerConversion: true });
  }

  /** Both ways; asserts they agree (deep-equal, and the same JSON text, so the same key order). */
  async same(field: CustomizationField, script: string, input: Input): Promise<Outcome> {
    const a = await outcome(this.lazy, field, script, input);
    const b = await outcome(this.eager, field, script, input);
    expect(a).toEqual(b);
    return a;
  }

  close(): void {
    this.lazy.close();
    this.eager.close();
  }
}
