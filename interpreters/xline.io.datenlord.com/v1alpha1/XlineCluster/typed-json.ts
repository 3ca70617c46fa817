// Go encoding/json for a typed struct, fed with the JSON an API server returned. The Go operator
// stores md5(json.Marshal(spec)) in status.lastApplySpecHash; reproducing that needs Go's field
// order, omitempty rules and pointer-vs-value semantics, which no JS library models (JSON.stringify
// keeps the input's key order), hence hand-written. Strings are written as Go writes them (src/go/json.ts).
import { goJsonString } from '../../../../src/go/json.ts';
import { isJsonObject } from '../../../../src/interpreter/types.ts';
import { canonicalQuantity } from '../../../../src/k8s/quantity.ts';

export type GoType =
  | { kind: 'string' }
  | { kind: 'int' }
  | { kind: 'bool' }
  | { kind: 'quantity' }
  | { kind: 'ptr'; elem: GoType }
  | { kind: 'struct'; fields: GoField[] }
  | { kind: 'map'; elem: GoType }
  | { kind: 'slice'; elem: GoType };

/** One struct field: its JSON name, its type, `omitempty`, and whether it is embedded (promoted). */
export interface GoField {
  json: string;
  type: GoType;
  omitempty?: boolean;
  /** An embedded struct with an empty tag name (`json:",inline"`): encoding/json promotes its fields. */
  embedded?: boolean;
}

export const goString: GoType = { kind: 'string' };
export const goInt: GoType = { kind: 'int' };
export const goBool: GoType = { kind: 'bool' };
export const goQuantity: GoType = { kind: 'quantity' };
export const ptr = (elem: GoType): GoType => ({ kind: 'ptr', elem });
export const struct = (fields: GoField[]): GoType => ({ kind: 'struct', fields });
export const goMap = (elem: GoType): GoType => ({ kind: 'map', elem });
export const slice = (elem: GoType): GoType => ({ kind: 'slice', elem });

/** The JSON holds a key or a value the Go type cannot hold: this layout is not the operator's. */
export class GoLayoutMismatch extends Error {
  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.name = 'GoLayoutMismatch';
  }
}

const isNil = (v: unknown): boolean => v === undefined || v === null;

/** Fields as encoding/json sees them: embedded structs' fields promoted in place. */
function visibleFields(fields: GoField[]): GoField[] {
  return fields.flatMap((f) => (f.embedded && f.type.kind === 'struct' ? visibleFields(f.type.fields) : [f]));
}

interface StructLayout {
  visible: GoField[];
  known: Set<string>;
}

// Layouts are static tables and every health check hashes the spec with them: each struct's view is
// computed once.
const layouts = new WeakMap<GoField[], StructLayout>();

function layoutOf(fields: GoField[]): StructLayout {
  let layout = layouts.get(fields);
  if (!layout) {
    const visible = visibleFields(fields);
    layout = { visible, known: new Set(visible.map((f) => f.json)) };
    layouts.set(fields, layout);
  }
  return layout;
}

/** Go's "empty value" for omitempty: false, 0, "", nil pointer, nil or empty map/slice. Structs never are. */
function isEmpty(v: unknown, t: GoType): boolean {
  switch (t.kind) {
    case 'string':
      return isNil(v) || v === '';
    case 'int':
      return isNil(v) || v === 0;
    case 'bool':
      return v !== true;
    case 'quantity':
    case 'struct':
      return false;
    case 'ptr':
      return isNil(v);
    case 'map':
      return isNil(v) || Object.keys(v as object).length === 0;
    case 'slice':
      return isNil(v) || (v as unknown[]).length === 0;
  }
}

/**
 * Marshals `value` (decoded JSON) as Go would after json.Unmarshal into type `t`: a JSON null or a
 * missing key gives the zero value. Throws GoLayoutMismatch when the JSON carries a key the struct
 * does not declare or a value of the wrong type (the operator build that wrote the hash was another).
 */
export function goMarshal(value: unknown, t: GoType, path = '$'): string {
  switch (t.kind) {
    case 'string':
      if (isNil(value)) return '""';
      if (typeof value !== 'string') throw new GoLayoutMismatch(path, 'expected a string');
      return goJsonString(value);
    case 'int':
      if (isNil(value)) return '0';
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new GoLayoutMismatch(path, 'expected an integer');
      return String(value);
    case 'bool':
      if (isNil(value)) return 'false';
      if (typeof value !== 'boolean') throw new GoLayoutMismatch(path, 'expected a boolean');
      return String(value);
    case 'quantity':
      if (typeof value !== 'string' && typeof value !== 'number') throw new GoLayoutMismatch(path, 'expected a quantity');
      try {
        return goJsonString(canonicalQuantity(value));
      } catch {
        // Go's decoder would have failed on it: no build of this layout could have hashed this spec.
        throw new GoLayoutMismatch(path, 'not a valid quantity');
      }
    case 'ptr':
      return isNil(value) ? 'null' : goMarshal(value, t.elem, path);
    case 'struct':
      return marshalStruct(value, t.fields, path);
    case 'map': {
      if (isNil(value)) return 'null';
      if (!isJsonObject(value)) throw new GoLayoutMismatch(path, 'expected an object');
      // Go sorts map keys by their UTF-8 bytes; Buffer.compare orders exactly that way.
      const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      return `{${keys.map((k) => `${goJsonString(k)}:${goMarshal(value[k], t.elem, `${path}.${k}`)}`).join(',')}}`;
    }
    case 'slice':
      if (isNil(value)) return 'null';
      if (!Array.isArray(value)) throw new GoLayoutMismatch(path, 'expected a list');
      return `[${value.map((v, i) => goMarshal(v, t.elem, `${path}[${i}]`)).join(',')}]`;
  }
}

function marshalStruct(value: unknown, fields: GoField[], path: string): string {
  if (!isNil(value) && !isJsonObject(value)) throw new GoLayoutMismatch(path, 'expected an object');
  const obj = (value ?? {}) as Record<string, unknown>;
  const { visible, known } = layoutOf(fields);
  const unknown = Object.keys(obj).find((k) => !known.has(k));
  if (unknown !== undefined) throw new GoLayoutMismatch(`${path}.${unknown}`, 'not a field of this struct');
  const parts: string[] = [];
  for (const f of visible) {
    const v = obj[f.json];
    if (f.omitempty && isEmpty(v, f.type)) continue;
    parts.push(`${goJsonString(f.json)}:${goMarshal(v, f.type, `${path}.${f.json}`)}`);
  }
  return `{${parts.join(',')}}`;
}
