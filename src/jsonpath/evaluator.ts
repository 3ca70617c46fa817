// A port of the execution half of k8s.io/client-go/util/jsonpath/jsonpath.go (FindResults, walk,
// eval*, PrintResults, evalToText) for data decoded by encoding/json into interface{}.
//
// Every eval step returns its results *and* its error, as the Go functions do, because client-go
// sometimes uses the results of a failed step: an existence filter `[?(@.a[5])]` keeps an element
// whose index is out of bounds, since evalArray returns its input along with the error.

import { compareGo, ComparisonError } from './compare.ts';
import { JsonPathExecError } from './errors.ts';
import { marshalGoJson, sprintGoValue } from './goformat.ts';
import type { JsonPathNode, ListNode } from './nodes.ts';
import {
  GoByte,
  GoInt,
  goTypeName,
  INVALID,
  isJsonMap,
  mapEntry,
  sortedMapKeys,
  wellFormed,
  type GoValue,
} from './values.ts';

interface Step {
  values: GoValue[];
  error?: string;
}

export interface EvaluationResult {
  /** What client-go's Execute writes. */
  text: string;
  /**
   * True when `*` or `..` expanded a map with several keys and the template printed more than one
   * value: Go iterates maps in random order, so Karmada may order these values differently on each
   * evaluation. This implementation always uses sorted key order.
   */
  mapOrderDependent: boolean;
}

export function evaluate(root: ListNode, data: unknown, allowMissingKeys: boolean): EvaluationResult {
  const evaluator = new Evaluator(root.nodes, allowMissingKeys);
  let groups: GoValue[][];
  try {
    // reflect.ValueOf(nil) is the invalid Value, not a nil interface.
    groups = evaluator.findResults(data === null || data === undefined ? INVALID : data, 0);
  } catch (error) {
    if (error instanceof JsonPathExecError) error.mapOrderDependent = evaluator.expandedUnorderedMap;
    throw error;
  }
  const printed = groups.reduce((count, group) => count + group.length, 0);
  return {
    text: groups.map(printResults).join(''),
    mapOrderDependent: evaluator.expandedUnorderedMap && printed > 1,
  };
}

/** PrintResults: maps and slices as json.Marshal, the rest as fmt.Fprint; one space between. */
function printResults(results: GoValue[]): string {
  return results.map((value) => (Array.isArray(value) || isJsonMap(value) ? marshalGoJson(value) : evalToText(value))).join(' ');
}

/**
 * evalToText: fmt.Fprint of template.PrintableValue(v), except that a nil interface (a JSON null) prints
 * `null` (client-go ≥ 0.29, kubernetes/kubernetes#119883; Karmada vendors 0.36). Error messages still
 * print it as fmt does, `<nil>`.
 */
function evalToText(value: GoValue): string {
  if (value === INVALID) return '<no value>';
  if (value === null || value === undefined) return 'null';
  return sprintGoValue(value);
}

/** value.Interface() passed back through reflect.ValueOf, as FindResults does for range items. */
function reflectAgain(value: GoValue): GoValue {
  return value === null ? INVALID : value;
}

class Evaluator {
  private beginRange = 0;
  private inRange = 0;
  private endRange = 0;
  /** Index in the root node list of the most recent `{end}` (Go keeps a pointer to it). */
  private lastEndNode = -1;
  expandedUnorderedMap = false;

  private readonly nodes: JsonPathNode[];
  private readonly allowMissingKeys: boolean;

  constructor(nodes: JsonPathNode[], allowMissingKeys: boolean) {
    this.nodes = nodes;
    this.allowMissingKeys = allowMissingKeys;
  }

  /** FindResults over nodes[start:], the slice client-go stores in parser.Root.Nodes. */
  findResults(data: GoValue, start: number): GoValue[][] {
    const cur = [data];
    const fullResult: GoValue[][] = [];
    for (let i = start; i < this.nodes.length; i++) {
      const step = this.walk(cur, this.nodes[i]!);
      if (step.error !== undefined) throw new JsonPathExecError(step.error);

      // An end node closes the current block.
      if (this.endRange > 0 && this.endRange <= this.inRange) {
        this.endRange--;
        this.lastEndNode = i;
        break;
      }
      // A range node starts a loop over the rest of the template.
      if (this.beginRange > 0) {
        this.beginRange--;
        this.inRange++;
        if (step.values.length > 0) {
          for (const value of step.values) fullResult.push(...this.findResults(reflectAgain(value), i + 1));
        } else {
          // Still walk the body so that the position advances to its end node.
          this.findResults(INVALID, i + 1);
        }
        this.inRange--;
        for (let k = i + 1; k < this.nodes.length; k++) {
          if (k === this.lastEndNode) {
            i = k;
            break;
          }
        }
        continue;
      }
      fullResult.push(step.values);
    }
    return fullResult;
  }

  private walk(values: GoValue[], node: JsonPathNode): Step {
    switch (node.type) {
      case 'list':
        return this.evalList(values, node);
      case 'text':
        return { values: [node.text] };
      case 'field':
        return this.evalField(values, node.name);
      case 'array':
        return this.evalArray(values, node);
      case 'filter':
        return this.evalFilter(values, node);
      case 'int':
        return { values: values.map(() => new GoInt(node.value)) };
      case 'float':
      case 'bool':
        return { values: values.map(() => node.value) };
      case 'wildcard':
        return { values: values.flatMap((value) => this.children(value)) };
      case 'recursive':
        return { values: this.evalRecursive(values) };
      case 'union':
        return this.evalUnion(values, node.branches);
      case 'identifier':
        return this.evalIdentifier(values, node.name);
    }
  }

  private evalList(values: GoValue[], list: ListNode): Step {
    let current = values;
    for (const node of list.nodes) {
      const step = this.walk(current, node);
      if (step.error !== undefined) return step;
      current = step.values;
    }
    return { values: current };
  }

  private evalIdentifier(input: GoValue[], name: string): Step {
    switch (name) {
      case 'range':
        this.beginRange++;
        return { values: input };
      case 'end':
        if (this.inRange > 0) {
          this.endRange++;
          return { values: [] };
        }
        return { values: [], error: 'not in range, nothing to end' };
      default:
        return { values: input, error: `unrecognized identifier ${name}` };
    }
  }

  private evalField(input: GoValue[], name: string): Step {
    const results: GoValue[] = [];
    if (input.length === 0) return { values: results };
    for (const value of input) {
      if (!isJsonMap(value)) continue; // nil interfaces are skipped, scalars have no fields
      const entry = mapEntry(value, name);
      if (entry.found) results.push(entry.value);
    }
    if (results.length === 0 && !this.allowMissingKeys) return { values: results, error: `${name} is not found` };
    return { values: results };
  }

  private evalArray(input: GoValue[], node: Extract<JsonPathNode, { type: 'array' }>): Step {
    const result: GoValue[] = [];
    for (const value of input) {
      if (value === null) continue;
      if (value === INVALID) {
        // client-go calls value.Type() on the zero Value here, which panics.
        return { values: input, error: 'reflect: call of reflect.Value.Type on zero Value' };
      }
      if (!Array.isArray(value)) return { values: input, error: `${goTypeName(value)} is not array or slice` };
      // Go int arithmetic (int64, wrapping).
      const length = BigInt(value.length);
      const [p0, p1, p2] = node.params.map((param) => ({ ...param }));
      if (!p0!.known) p0!.value = 0n;
      if (p0!.value < 0n) p0!.value = BigInt.asIntN(64, p0!.value + length);
      if (!p1!.known) p1!.value = length;
      if (p1!.value < 0n || (p1!.value === 0n && p1!.derived)) p1!.value = BigInt.asIntN(64, p1!.value + length);
      if (p1!.value === p0!.value) {
        // A request for zero elements ends the whole step, dropping any later inputs (client-go).
        return { values: result };
      }
      if (p0!.value >= length || p0!.value < 0n) {
        return { values: input, error: `array index out of bounds: index ${p0!.value}, length ${length}` };
      }
      if (p1!.value > length || p1!.value < 0n) {
        return { values: input, error: `array index out of bounds: index ${BigInt.asIntN(64, p1!.value - 1n)}, length ${length}` };
      }
      if (p0!.value > p1!.value) {
        return { values: input, error: `starting index ${p0!.value} is greater than ending index ${p1!.value}` };
      }
      // Within 0..length from here.
      const slice = value.slice(Number(p0!.value), Number(p1!.value));
      let stride = 1;
      if (p2!.known) {
        if (p2!.value <= 0n) return { values: input, error: 'step must be > 0' };
        stride = Number(p2!.value);
      }
      for (let i = 0; i < slice.length; i += stride) result.push(slice[i]);
    }
    return { values: result };
  }

  private evalUnion(input: GoValue[], branches: ListNode[]): Step {
    const result: GoValue[] = [];
    for (const branch of branches) {
      const step = this.evalList(input, branch);
      if (step.error !== undefined) return { values: input, error: step.error };
      result.push(...step.values);
    }
    return { values: result };
  }

  /** What `*` and `..` iterate: map values, slice items, the bytes of a string. */
  private children(value: GoValue): GoValue[] {
    if (Array.isArray(value)) return value;
    if (isJsonMap(value)) {
      const keys = sortedMapKeys(value);
      if (keys.length > 1) this.expandedUnorderedMap = true;
      return keys.map((key) => value[key]);
    }
    if (typeof value === 'string') return Array.from(new TextEncoder().encode(wellFormed(value)), (byte) => new GoByte(byte));
    return [];
  }

  private evalRecursive(input: GoValue[]): GoValue[] {
    const result: GoValue[] = [];
    for (const value of input) {
      if (value === null) continue;
      const children = this.children(value);
      if (children.length !== 0) {
        result.push(value);
        result.push(...this.evalRecursive(children));
      }
    }
    return result;
  }

  private evalFilter(input: GoValue[], node: Extract<JsonPathNode, { type: 'filter' }>): Step {
    const results: GoValue[] = [];
    for (const value of input) {
      if (!Array.isArray(value)) {
        return { values: input, error: `${sprintGoValue(value)} is not array or slice and cannot be filtered` };
      }
      for (const item of value) {
        const temp = [item];
        const lefts = this.evalList(temp, node.left);
        if (node.operator === 'exists') {
          if (lefts.values.length > 0) results.push(item);
          continue;
        }
        if (lefts.error !== undefined) return { values: input, error: lefts.error };
        if (lefts.values.length === 0) continue;
        if (lefts.values.length > 1) return { values: input, error: 'can only compare one element at a time' };
        const rights = this.evalList(temp, node.right);
        if (rights.error !== undefined) return { values: input, error: rights.error };
        if (rights.values.length === 0) continue;
        if (rights.values.length > 1) return { values: input, error: 'can only compare one element at a time' };
        let pass: boolean;
        try {
          pass = compareGo(node.operator, lefts.values[0], rights.values[0]);
        } catch (error) {
          if (error instanceof ComparisonError) return { values: results, error: error.message };
          throw error;
        }
        if (pass) results.push(item);
      }
    }
    return { values: results };
  }
}
