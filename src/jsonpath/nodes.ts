// The parse tree of a client-go JSONPath template (k8s.io/client-go/util/jsonpath/node.go).

/** One bound of a slice `[start:end:step]`; `derived` marks the end of a plain index `[n]` (n+1). */
export interface SliceParam {
  known: boolean;
  /** A Go int (int64): indexes past 2^53 stay exact, and arithmetic wraps as Go's does (int64). */
  value: bigint;
  derived: boolean;
}

export type JsonPathNode =
  | ListNode
  | { type: 'text'; text: string }
  | { type: 'field'; name: string }
  | { type: 'array'; params: readonly [SliceParam, SliceParam, SliceParam] }
  | { type: 'filter'; left: ListNode; right: ListNode; operator: string }
  | { type: 'int'; value: bigint }
  | { type: 'float'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'wildcard' }
  | { type: 'recursive' }
  | { type: 'union'; branches: ListNode[] }
  | { type: 'identifier'; name: string };

export interface ListNode {
  type: 'list';
  nodes: JsonPathNode[];
}

export function newList(): ListNode {
  return { type: 'list', nodes: [] };
}
