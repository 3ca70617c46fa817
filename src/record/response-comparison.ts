// Semantic comparison of two responses to the same recorded request (`replay`, test/fixtures).
// Two answers are the same when Karmada would end up with the same thing:
// - patches: both applied to the recorded request.object, the resulting objects compared;
// - quantities (values of resource lists: resourceRequest, requests, limits, ...) by value: 1 = 1000m;
// - dependencies as a set (order and duplicates do not matter), components by name;
// - object key order never matters; array order does (except for the two lists above).
// The result is a list of differences (path, old, new); empty means unchanged.
import { isDeepStrictEqual } from 'node:util';
import { quantityEquals } from '../k8s/quantity.ts';
import { applyPatch, decodePatch } from '../protocol/patch.ts';
import type { InterpreterContext, InterpreterRequest } from '../protocol/wire.ts';

export interface Difference {
  /** Where, e.g. `object.spec.replicas`, `replicaRequirements.resourceRequest.cpu`, `dependencies[]`. */
  path: string;
  /** undefined = absent on that side. */
  old: unknown;
  new: unknown;
}

const PATCH_OPERATIONS = new Set(['ReviseReplica', 'Retain', 'AggregateStatus', 'Prune']);

/** Maps whose values are Kubernetes quantities (ResourceList and friends). */
const QUANTITY_MAPS = new Set(['resourceRequest', 'requests', 'limits', 'overhead', 'capacity', 'allocatable', 'hard', 'used']);

/** What Karmada would take from a response, as a plain value to compare. Throws if a patch does not apply. */
export function meaningOf(request: InterpreterRequest, envelope: InterpreterContext | null | undefined): Record<string, unknown> {
  const response = envelope?.response;
  if (!response) return { response: '(none)' };
  if (response.successful !== true) {
    return { successful: false, status: { code: response.status?.code, message: response.status?.message } };
  }
  if (PATCH_OPERATIONS.has(request.operation)) {
    const object = response.patch ? applyPatch(request.object, decodePatch(response.patch)) : request.object;
    return { successful: true, object };
  }
  switch (request.operation) {
    case 'InterpretReplica':
      return { successful: true, replicas: response.replicas, replicaRequirements: response.replicaRequirements };
    case 'InterpretComponent':
      return { successful: true, components: keyedBy(response.components ?? [], (c) => c.name) };
    case 'InterpretDependency':
      return { successful: true, dependencies: dependencySet(response.dependencies ?? []) };
    case 'InterpretStatus':
      return { successful: true, rawStatus: response.rawStatus };
    case 'InterpretHealth':
      return { successful: true, healthy: response.healthy };
    default: {
      const { uid: _uid, ...rest } = response;
      return rest;
    }
  }
}

/** Marks a map built from a list compared as a set, so paths print as `list[]` rather than `list.<key>`. */
const SET = Symbol('set');
type SetMap = Record<string, unknown> & { [SET]?: true };

function dependencySet(list: unknown[]): SetMap {
  const set: SetMap = {};
  for (const item of list) set[stableJson(item)] = item;
  set[SET] = true;
  return set;
}

function keyedBy<T>(list: T[], key: (item: T) => string): Record<string, unknown> {
  return Object.fromEntries(list.map((item) => [key(item), item]));
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** Differences between the recorded and the new response to `request` (empty = unchanged). */
export function compareResponses(request: InterpreterRequest, recorded: InterpreterContext | null, replayed: InterpreterContext): Difference[] {
  const out: Difference[] = [];
  diffValues(meaningOf(request, recorded), meaningOf(request, replayed), '', undefined, out);
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function childPath(path: string, key: string): string {
  const plain = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key);
  if (plain) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

/** `mapKey` is the key of the object holding `old`/`next`, to recognise quantity-map values. */
function diffValues(old: unknown, next: unknown, path: string, mapKey: string | undefined, out: Difference[], ownKey?: string): void {
  if (isRecord(old) && isRecord(next)) {
    if ((old as SetMap)[SET] || (next as SetMap)[SET]) {
      for (const key of new Set([...Object.keys(old), ...Object.keys(next)])) {
        if (!(key in next)) out.push({ path: `${path}[]`, old: old[key], new: undefined });
        else if (!(key in old)) out.push({ path: `${path}[]`, old: undefined, new: next[key] });
      }
      return;
    }
    const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])].sort();
    for (const key of keys) diffValues(old[key], next[key], childPath(path, key), ownKey, out, key);
    return;
  }
  if (Array.isArray(old) && Array.isArray(next)) {
    for (let i = 0; i < Math.max(old.length, next.length); i++) diffValues(old[i], next[i], `${path}[${i}]`, ownKey, out, ownKey);
    return;
  }
  if (isDeepStrictEqual(old, next)) return;
  if (mapKey !== undefined && QUANTITY_MAPS.has(mapKey) && sameQuantity(old, next)) return;
  out.push({ path, old, new: next });
}

function sameQuantity(a: unknown, b: unknown): boolean {
  if ((typeof a !== 'string' && typeof a !== 'number') || (typeof b !== 'string' && typeof b !== 'number')) return false;
  try {
    return quantityEquals(a, b);
  } catch {
    return false;
  }
}

/** `path: old → new`, values as compact JSON (long ones shortened), absent shown as (absent). */
export function formatDifference(difference: Difference, maxValueLength = 160): string {
  const show = (v: unknown) => {
    if (v === undefined) return '(absent)';
    const text = JSON.stringify(v);
    return text.length > maxValueLength ? `${text.slice(0, maxValueLength - 1)}…` : text;
  };
  return `${difference.path || '(response)'}: ${show(difference.old)} → ${show(difference.new)}`;
}
