// Karmada's ResourceInterpreterContext wire format (config.karmada.io/v1alpha1), spec §1.
import type { AggregatedStatusItem, Component, DependentObjectReference, KObject, ReplicaRequirements } from '../interpreter/types.ts';

export const CONTEXT_API_VERSION = 'config.karmada.io/v1alpha1';
export const CONTEXT_KIND = 'ResourceInterpreterContext';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface InterpreterRequest {
  uid: string;
  kind: GroupVersionKind;
  name?: string;
  namespace?: string;
  operation: string;
  object: KObject;
  observedObject?: KObject;
  replicas?: number;
  aggregatedStatus?: AggregatedStatusItem[];
}

export interface InterpreterResponse {
  uid: string;
  successful: boolean;
  status?: { code?: number; message?: string };
  patch?: string;
  patchType?: 'JSONPatch';
  replicas?: number;
  replicaRequirements?: ReplicaRequirements;
  components?: Component[];
  dependencies?: DependentObjectReference[];
  rawStatus?: unknown;
  healthy?: boolean;
}

export interface InterpreterContext {
  apiVersion?: string;
  kind?: string;
  request?: InterpreterRequest;
  response?: InterpreterResponse;
}

/** `apiVersion` of an object from the request GVK (the core group is ""). */
export function apiVersionOf(gvk: GroupVersionKind): string {
  return gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
}

export function responseEnvelope(response: InterpreterResponse): InterpreterContext {
  return { apiVersion: CONTEXT_API_VERSION, kind: CONTEXT_KIND, response };
}

/** Longest status message answered (a Lua error can carry any text a script builds). */
export const MAX_MESSAGE_LENGTH = 4096;

/** `text` cut to `max` characters, saying how much was left out. */
export function clip(text: string, max = MAX_MESSAGE_LENGTH): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

export function failure(uid: string, code: number, message: string): InterpreterContext {
  return responseEnvelope({ uid, successful: false, status: { code, message: clip(message) } });
}
