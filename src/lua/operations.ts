// The Lua path's one list of operations: per Karmada operation, the RIC field holding its script, the Lua
// function Karmada calls, the KindInterpreter method it serves and the request fields that are its
// arguments. Loading, checking, the adapter, the worker pool's messages and the runtime all read it.
import type { AggregatedStatusItem, Component, DependentObjectReference, KindInterpreter, KObject, Operation, ReplicaResult } from '../interpreter/types.ts';

/** A field of a Karmada ResourceInterpreterContext request that a Lua function takes as an argument. */
export type RequestField = 'object' | 'observedObject' | 'replicas' | 'aggregatedStatus';

interface LuaOperationRule {
  field: string;
  functionName: string;
  method: keyof KindInterpreter;
  arguments: readonly RequestField[];
}

/** In karmadactl's rule order (pkg/util/interpreter/rule.go), which loading and listing follow. */
export const LUA_OPERATIONS = {
  Retain: { field: 'retention', functionName: 'Retain', method: 'retain', arguments: ['object', 'observedObject'] },
  InterpretReplica: { field: 'replicaResource', functionName: 'GetReplicas', method: 'getReplicas', arguments: ['object'] },
  InterpretComponent: { field: 'componentResource', functionName: 'GetComponents', method: 'getComponents', arguments: ['object'] },
  ReviseReplica: { field: 'replicaRevision', functionName: 'ReviseReplica', method: 'reviseReplica', arguments: ['object', 'replicas'] },
  InterpretStatus: { field: 'statusReflection', functionName: 'ReflectStatus', method: 'reflectStatus', arguments: ['object'] },
  AggregateStatus: { field: 'statusAggregation', functionName: 'AggregateStatus', method: 'aggregateStatus', arguments: ['object', 'aggregatedStatus'] },
  InterpretHealth: { field: 'healthInterpretation', functionName: 'InterpretHealth', method: 'interpretHealth', arguments: ['object'] },
  InterpretDependency: { field: 'dependencyInterpretation', functionName: 'GetDependencies', method: 'getDependencies', arguments: ['object'] },
} as const satisfies Record<Operation, LuaOperationRule>;

export type LuaOperation = keyof typeof LUA_OPERATIONS;
export type CustomizationField = (typeof LUA_OPERATIONS)[LuaOperation]['field'];

/** What each operation's Lua function is given and what its result converts to. */
export interface LuaOperationTypes {
  Retain: { args: [desired: KObject, observed: KObject]; result: KObject };
  InterpretReplica: { args: [object: KObject]; result: ReplicaResult };
  InterpretComponent: { args: [object: KObject]; result: Component[] };
  ReviseReplica: { args: [object: KObject, replicas: number]; result: KObject };
  InterpretStatus: { args: [observed: KObject]; result: Record<string, any> };
  AggregateStatus: { args: [object: KObject, items: AggregatedStatusItem[] | undefined]; result: KObject };
  InterpretHealth: { args: [observed: KObject]; result: boolean };
  InterpretDependency: { args: [object: KObject]; result: DependentObjectReference[] };
}
export type LuaArgs<O extends LuaOperation> = LuaOperationTypes[O]['args'];
export type LuaResult<O extends LuaOperation> = LuaOperationTypes[O]['result'];

/** The table as a list, for loops over every operation (field, operation, function name). */
export const CUSTOMIZATION_RULES = Object.entries(LUA_OPERATIONS).map(([operation, rule]) => ({ ...rule, operation: operation as LuaOperation })) as Array<
  { [O in LuaOperation]: (typeof LUA_OPERATIONS)[O] & { operation: O } }[LuaOperation]
>;

/** How one call runs: its deadline, where its `print` lines go, its turn among waiting calls, its request. */
export interface LuaCallOptions {
  timeoutMs?: number;
  onPrint?: (line: string) => void;
  /** performance.now() after which the call is not run any more if it is still waiting for a worker. */
  notAfter?: number;
  /** Calls waiting for a worker are taken in turn across keys (the customization). */
  key?: string;
  /**
   * The JSON text of the Karmada request whose fields are the call's arguments (`arguments`
   * above): a worker parses it instead of the main thread serializing the arguments again.
   */
  requestText?: string;
}

/** The arguments of an operation's Lua function, read from a Karmada request (the worker's side of a hand-off). */
export function argumentsFromRequest(operation: LuaOperation, request: Partial<Record<RequestField, unknown>>): unknown[] {
  return LUA_OPERATIONS[operation].arguments.map((field) => request[field]);
}
