// Go encoding/json decoding of a Lua result into Karmada's typed results (ReplicaRequirements, []Component,
// []DependentObjectReference), then re-marshalled as Go would.
import { setOwn } from '../../interpreter/copy.ts';
import { Quantity } from '../../k8s/quantity.ts';
import { goSprintFloat } from '../../go/fmt.ts';
import { goJsonFloat } from '../../go/json.ts';

// Field names match case-insensitively, unknown fields are ignored, int32/int64 fields reject fractions,
// Quantity fields accept strings or numbers and come out canonical, omitempty fields disappear when empty.

type Schema =
  | { kind: 'string' }
  | { kind: 'int'; bits: 32 | 64 }
  | { kind: 'quantity' }
  | { kind: 'array'; of: Schema; goType: string }
  | { kind: 'map'; of: Schema; goType: string }
  | { kind: 'struct'; goType: string; fields: Record<string, { schema: Schema; omitempty: boolean; pointer?: boolean }> };

export class TypedDecodeError extends Error {}

const str: Schema = { kind: 'string' };
const stringList: Schema = { kind: 'array', of: str, goType: '[]string' };
const stringMap: Schema = { kind: 'map', of: str, goType: 'map[string]string' };
const resourceList: Schema = { kind: 'map', of: { kind: 'quantity' }, goType: 'v1.ResourceList' };
const field = (schema: Schema, omitempty = true, pointer = false) => ({ schema, omitempty, pointer });

const nodeSelectorRequirement: Schema = {
  kind: 'struct',
  goType: 'NodeSelectorRequirement',
  fields: { key: field(str, false), operator: field(str, false), values: field(stringList) },
};
const nodeSelectorTerm: Schema = {
  kind: 'struct',
  goType: 'NodeSelectorTerm',
  fields: {
    matchExpressions: field({ kind: 'array', of: nodeSelectorRequirement, goType: '[]v1.NodeSelectorRequirement' }),
    matchFields: field({ kind: 'array', of: nodeSelectorRequirement, goType: '[]v1.NodeSelectorRequirement' }),
  },
};
const nodeSelector: Schema = {
  kind: 'struct',
  goType: 'NodeSelector',
  fields: { nodeSelectorTerms: field({ kind: 'array', of: nodeSelectorTerm, goType: '[]v1.NodeSelectorTerm' }, false) },
};
const toleration: Schema = {
  kind: 'struct',
  goType: 'Toleration',
  fields: {
    key: field(str),
    operator: field(str),
    value: field(str),
    effect: field(str),
    tolerationSeconds: field({ kind: 'int', bits: 64 }, true, true),
  },
};
const nodeClaim: Schema = {
  kind: 'struct',
  goType: 'NodeClaim',
  fields: {
    hardNodeAffinity: field(nodeSelector, true, true),
    nodeSelector: field(stringMap),
    tolerations: field({ kind: 'array', of: toleration, goType: '[]v1.Toleration' }),
  },
};
export const replicaRequirementsSchema: Schema = {
  kind: 'struct',
  goType: 'ReplicaRequirements',
  fields: {
    nodeClaim: field(nodeClaim, true, true),
    resourceRequest: field(resourceList),
    namespace: field(str),
    priorityClassName: field(str),
  },
};
const componentReplicaRequirements: Schema = {
  kind: 'struct',
  goType: 'ComponentReplicaRequirements',
  fields: { nodeClaim: field(nodeClaim, true, true), resourceRequest: field(resourceList), priorityClassName: field(str) },
};
export const componentsSchema: Schema = {
  kind: 'array',
  goType: '[]v1alpha2.Component',
  of: {
    kind: 'struct',
    goType: 'Component',
    fields: {
      name: field(str, false),
      replicas: field({ kind: 'int', bits: 32 }, false),
      replicaRequirements: field(componentReplicaRequirements, true, true),
    },
  },
};
const labelSelector: Schema = {
  kind: 'struct',
  goType: 'LabelSelector',
  fields: {
    matchLabels: field(stringMap),
    matchExpressions: field({
      kind: 'array',
      goType: '[]v1.LabelSelectorRequirement',
      of: { kind: 'struct', goType: 'LabelSelectorRequirement', fields: { key: field(str, false), operator: field(str, false), values: field(stringList) } },
    }),
  },
};
export const dependenciesSchema: Schema = {
  kind: 'array',
  goType: '[]v1alpha1.DependentObjectReference',
  of: {
    kind: 'struct',
    goType: 'DependentObjectReference',
    fields: {
      apiVersion: field(str, false),
      kind: field(str, false),
      namespace: field(str),
      name: field(str),
      labelSelector: field(labelSelector, true, true),
    },
  },
};

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value === 'boolean' ? 'bool' : typeof value;
}

function mismatch(value: unknown, goType: string, where: string | undefined): TypedDecodeError {
  const what = typeof value === 'number' ? `number ${goSprintFloat(value)}` : jsonKind(value);
  const target = where ? `Go struct field ${where} of type ${goType}` : `Go value of type ${goType}`;
  return new TypedDecodeError(`json: cannot unmarshal ${what} into ${target}`);
}

function goTypeOf(schema: Schema): string {
  switch (schema.kind) {
    case 'string':
      return 'string';
    case 'int':
      return `int${schema.bits}`;
    case 'quantity':
      return 'resource.Quantity';
    case 'struct':
      return `v1alpha2.${schema.goType}`;
    default:
      return schema.goType;
  }
}

/** Decodes `value` into `schema`; returns undefined for Go zero values that omitempty would drop. */
function decode(value: unknown, schema: Schema, where: string | undefined): unknown {
  if (value === null) return undefined;
  switch (schema.kind) {
    case 'string':
      if (typeof value !== 'string') throw mismatch(value, 'string', where);
      return value;
    case 'int': {
      const limit = schema.bits === 32 ? 2 ** 31 : 2 ** 63;
      if (typeof value !== 'number') throw mismatch(value, goTypeOf(schema), where);
      if (!Number.isInteger(value) || value < -limit || value >= limit) throw mismatch(value, goTypeOf(schema), where);
      return value;
    }
    case 'quantity': {
      if (typeof value !== 'string' && typeof value !== 'number') throw mismatch(value, 'resource.Quantity', where);
      try {
        return Quantity.parse(typeof value === 'number' ? goJsonFloat(value) : value).toString();
      } catch (err) {
        throw new TypedDecodeError(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
      }
    }
    case 'array': {
      if (!Array.isArray(value)) throw mismatch(value, schema.goType, where);
      return value.map((item) => decode(item, schema.of, where) ?? zeroValue(schema.of));
    }
    case 'map': {
      if (jsonKind(value) !== 'object') throw mismatch(value, schema.goType, where);
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) setOwn(out, key, decode(item, schema.of, where) ?? zeroValue(schema.of));
      return out;
    }
    case 'struct': {
      if (jsonKind(value) !== 'object') throw mismatch(value, goTypeOf(schema), where);
      const decoded: Record<string, unknown> = {};
      const names = Object.keys(schema.fields);
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const name = names.find((n) => n === key) ?? names.find((n) => n.toLowerCase() === key.toLowerCase());
        if (name === undefined) continue; // unknown fields are ignored
        const path = where ? `${where}.${name}` : `${schema.goType}.${name}`;
        decoded[name] = decode(item, schema.fields[name].schema, path);
      }
      return marshalStruct(schema, decoded);
    }
  }
}

function zeroValue(schema: Schema): unknown {
  switch (schema.kind) {
    case 'string':
      return '';
    case 'int':
      return 0;
    case 'quantity':
      return '0';
    case 'array':
      return [];
    case 'map':
      return {};
    case 'struct':
      return marshalStruct(schema, {});
  }
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === '' || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

/** Go json.Marshal of the struct: omitempty drops zero values (but a non-nil pointer to an empty struct stays). */
function marshalStruct(schema: Extract<Schema, { kind: 'struct' }>, decoded: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(schema.fields)) {
    const value = decoded[name];
    if (spec.pointer) {
      if (value !== undefined) out[name] = value;
      continue;
    }
    const isEmptyMap = spec.schema.kind === 'map' && value !== undefined && Object.keys(value as object).length === 0;
    if (spec.omitempty && (isEmpty(value) || isEmptyMap)) continue;
    out[name] = value ?? zeroValue(spec.schema);
  }
  return out;
}

/** Decodes a repaired Lua result into a typed Karmada result; throws TypedDecodeError like Go would. */
export function decodeTyped<T>(value: unknown, schema: Schema): T {
  return decode(value, schema, undefined) as T;
}
