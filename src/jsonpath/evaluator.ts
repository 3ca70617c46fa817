// A port of the execution half of k8s.io/client-go/util/jsonpath/jsonpath.go (FindResults, walk,
// eval*, PrintResults, evalToText) for data decoded by encoding/json into interface{}.
//
// Every eval step returns its results *and* its error, as the Go functions do, because client-go
// sometimes uses the results of a failed step: an existence filter `[?(@.a[5])]` keeps an element
// whose index is out of bounds, since evalArray returns its input along with the error.

import { wellFormed } from '../go/utf8.ts';
import { compareGo, ComparisonError } from './filter-comparison.ts';
import { JsonPathExecError } from './errors.ts';
import { BoundedText, sprintGoValue, writeGoJson } from './print-values.ts';
import { JsonPathBudget, JsonPathLimitError, MAX_JSONPATH_MESSAGE_VALUE_CHARS, MAX_JSONPATH_OUTPUT_CHARS, outputLimitError } from './limits.ts';
import type { JsonPathNode, ListNode } from './nodes.ts';
import { GoByte, GoInt, goTypeName, INVALID, isJsonMap, mapEntry, sortedMapKeys, type GoValue } from './values.ts';

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

export interface EvaluationLimits {
  /** Budgets the evaluation draws from besides its own MAX_JSONPATH_VALUES (e.g. one per request). */
  budgets?: JsonPathBudget[];
  /** Characters the evaluation may write; MAX_JSONPATH_OUTPUT_CHARS by default. */
  maxOutputChars?: number;
}

export function evaluate(root: ListNode, data: unknown, allowMissingKeys: boolean, limits: EvaluationLimits = {}): EvaluationResult {
  const evaluator = new Evaluator(root.nodes, allowMissingKeys, [new JsonPathBudget(), ...(limits.budgets ?? [])]);
  const maxOutput = limits.maxOutputChars ?? MAX_JSONPATH_OUTPUT_CHARS;
  const out = new BoundedText(maxOutput, () => outputLimitError(maxOutput));
  let printed = 0;
  try {
    // reflect.ValueOf(nil) is the invalid Value, not a nil interface.
    const groups = evaluator.findResults(data === null || data === undefined ? INVALID : data, 0);
    for (const group of groups) {
      printResults(group, out);
      printed += group.length;
    }
  } catch (error) {
    // A cap says nothing about map order; any other failure may depend on it.
    if (error instanceof JsonPathExecError && !(error instanceof JsonPathLimitError)) {
      error.mapOrderDependent = evaluator.expandedUnorderedMap;
    }
    throw error;
  }
  return {
    text: out.toString(),
    mapOrderDependent: evaluator.expandedUnorderedMap && printed > 1,
  };
}

/** PrintResults: maps and slices as json.Marshal, the rest as fmt.Fprint; one space between. */
function printResults(results: GoValue[], out: BoundedText): void {
  results.forEach((value, i) => {
    if (i > 0) out.write(' ');
    if (Array.isArray(value) || isJsonMap(value)) writeGoJson(value, out);
    else out.write(evalToText(value));
  });
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
  private readonly budgets: JsonPathBudget[];

  constructor(nodes: JsonPathNode[], allowMissingKeys: boolean, budgets: JsonPathBudget[]) {
    this.nodes = nodes;
    this.allowMissingKeys = allowMissingKeys;
    this.budgets = budgets;
  }

  /** Counts `count` values against every budget; throws JsonPathLimitError past one. */
  private charge(count: number): void {
    for (const budget of this.budgets) budget.take(count);
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
        this.charge(1);
        return { values: [node.text] };
      case 'field':
        return this.evalField(values, node.name);
      case 'array':
        return this.evalArray(values, node);
      case 'filter':
        return this.evalFilter(values, node);
      case 'int':
        this.charge(values.length);
        return { values: values.map(() => new GoInt(node.value)) };
      case 'float':
      case 'bool':
        this.charge(values.length);
        return { values: values.map(() => node.value) };
      case 'wildcard': {
        const result: GoValue[] = [];
        for (const value of values) for (const child of this.children(value)) result.push(child);
        return { values: result };
      }
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
    this.charge(results.length);
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
      const start = Number(p0!.value);
      const end = Number(p1!.value);
      let stride = 1;
      if (p2!.known) {
        if (p2!.value <= 0n) return { values: input, error: 'step must be > 0' };
        // a stride past the length takes only the first element; keep the number exact and small
        stride = p2!.value > length ? value.length + 1 : Number(p2!.value);
      }
      this.charge(Math.ceil((end - start) / stride));
      for (let i = start; i < end; i += stride) result.push(value[i]);
    }
    return { values: result };
  }

  private evalUnion(input: GoValue[], branches: ListNode[]): Step {
    const result: GoValue[] = [];
    for (const branch of branches) {
      const step = this.evalList(input, branch);
      if (step.error !== undefined) return { values: input, error: step.error };
      this.charge(step.values.length);
      for (const value of step.values) result.push(value);
    }
    return { values: result };
  }

  /** What `*` and `..` iterate: map values, slice items, the bytes of a string; each one is charged. */
  private children(value: GoValue): GoValue[] {
    if (Array.isArray(value)) {
      this.charge(value.length);
      return value;
    }
    if (isJsonMap(value)) {
      this.charge(Object.keys(value).length);
      const keys = sortedMapKeys(value);
      if (keys.length > 1) this.expandedUnorderedMap = true;
      return keys.map((key) => value[key]);
    }
    if (typeof value === 'string') {
      // UTF-8 has at least one byte per UTF-16 unit: charge that before encoding, the rest after.
      this.charge(value.length);
      const bytes = new TextEncoder().encode(wellFormed(value));
      this.charge(bytes.length - value.length);
      return Array.from(bytes, (byte) => new GoByte(byte));
    }
    return [];
  }

  /**
   * evalRecursive: every value that has children, followed by the same for its children, depth first
   * (client-go's recursion, done with an explicit stack so deep data cannot exhaust the call stack and
   * no level copies the results of the levels below it).
   */
  private evalRecursive(input: GoValue[]): GoValue[] {
    const result: GoValue[] = [];
    const stack: Array<{ values: GoValue[]; next: number }> = [{ values: input, next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next >= top.values.length) {
        stack.pop();
        continue;
      }
      const value = top.values[top.next++];
      if (value === null) continue;
      const children = this.children(value);
      if (children.length !== 0) {
        this.charge(1);
        result.push(value);
        stack.push({ values: children, next: 0 });
      }
    }
    return result;
  }

  private evalFilter(input: GoValue[], node: Extract<JsonPathNode, { type: 'filter' }>): Step {
    const results: GoValue[] = [];
    for (const value of input) {
      if (!Array.isArray(value)) {
        const shown = sprintGoValue(value, MAX_JSONPATH_MESSAGE_VALUE_CHARS);
        return { values: input, error: `${shown} is not array or slice and cannot be filtered` };
      }
      for (const item of value) {
        this.charge(1);
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
