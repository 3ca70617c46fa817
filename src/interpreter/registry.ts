// Which implementation answers (apiVersion, kind, operation). Layers are consulted in Karmada's own
// spirit of precedence: a user's Lua customization beats our TypeScript module, which beats the Lua
// customizations we ship. Layers are replaced atomically (e.g. on customization reload), so a request
// always sees one consistent set.
import { OPERATIONS, OPERATION_METHOD, type KindInterpreter, type Operation } from './types.ts';

export const LAYERS = ['user-lua', 'builtin-ts', 'builtin-lua'] as const;
export type LayerName = (typeof LAYERS)[number];

export interface Resolved {
  interpreter: KindInterpreter;
  layer: LayerName;
}

export interface ServedKind {
  apiVersion: string;
  kind: string;
  operations: Operation[];
}

/**
 * A user customization that failed to load (a file with an unknown field, a script that does not
 * compile): a call it would have answered says so instead of "not served" or a silent fallback to a
 * lower layer, which would hide that the user's script is not running.
 */
export interface FailedCustomization {
  apiVersion: string;
  kind: string;
  /** The operations its document defines scripts for; empty when none could be read. */
  operations: Operation[];
  /** metadata.name, when it could be read. */
  customization?: string;
  file: string;
  /** 1-based document of the file. */
  document: number;
  /** Why, without the file's contents. */
  message: string;
}

type Index = Map<string, KindInterpreter[]>;

const key = (apiVersion: string, kind: string) => `${apiVersion}\u0000${kind}`;

export class Registry {
  private readonly layers = new Map<LayerName, Index>();
  private failures = new Map<string, FailedCustomization[]>();
  private disabledExamples = new Map<string, string>();

  constructor(initial: Partial<Record<LayerName, KindInterpreter[]>> = {}) {
    for (const layer of LAYERS) this.setLayer(layer, initial[layer] ?? []);
  }

  setLayer(layer: LayerName, interpreters: KindInterpreter[]): void {
    const index: Index = new Map();
    for (const interpreter of interpreters) {
      for (const target of interpreter.targets) {
        const k = key(target.apiVersion, target.kind);
        index.set(k, [...(index.get(k) ?? []), interpreter]);
      }
    }
    this.layers.set(layer, index);
  }

  /** Shipped examples that are not enabled (`Kind.group` by apiVersion and kind), so "not served" can say how to enable one. */
  setDisabledExamples(examples: ReadonlyArray<{ apiVersion: string; kind: string; name: string }>): void {
    this.disabledExamples = new Map(examples.map((example) => [key(example.apiVersion, example.kind), example.name]));
  }

  /** The `--examples` name of a shipped example for this kind that is not enabled. */
  disabledExample(apiVersion: string, kind: string): string | undefined {
    return this.disabledExamples.get(key(apiVersion, kind));
  }

  /** Replaces the failed user customizations (at start and on every reload of the user layer). */
  setFailed(failed: readonly FailedCustomization[]): void {
    const index = new Map<string, FailedCustomization[]>();
    for (const failure of failed) {
      const k = key(failure.apiVersion, failure.kind);
      index.set(k, [...(index.get(k) ?? []), failure]);
    }
    this.failures = index;
  }

  /**
   * The failed user customization that answers this call: every operation of a kind with a failed
   * customization, except one a working user script answers (the last good script of a reloaded file).
   * Not only the operations the failed document defines: with a misspelled field (`healthInterpretations:`)
   * the operation it meant is not among them, and a lower layer or "not served" would hide the failure.
   * The failure that defines the operation is preferred, then the file's first.
   */
  failureFor(apiVersion: string, kind: string, operation: Operation): FailedCustomization | undefined {
    const failures = this.failures.get(key(apiVersion, kind));
    if (!failures || failures.length === 0) return undefined;
    if (this.resolve(apiVersion, kind, operation)?.layer === 'user-lua') return undefined;
    return failures.find((f) => f.operations.includes(operation)) ?? failures[0];
  }

  /** The implementation for one operation, or undefined when no layer implements it. */
  resolve(apiVersion: string, kind: string, operation: Operation): Resolved | undefined {
    const method = OPERATION_METHOD[operation];
    for (const layer of LAYERS) {
      for (const interpreter of this.layers.get(layer)?.get(key(apiVersion, kind)) ?? []) {
        if (typeof interpreter[method] === 'function') return { interpreter, layer };
      }
    }
    return undefined;
  }

  serves(apiVersion: string, kind: string): boolean {
    return LAYERS.some((layer) => (this.layers.get(layer)?.get(key(apiVersion, kind))?.length ?? 0) > 0);
  }

  /** Every served kind with exactly the operations some layer implements, sorted for stable output. */
  served(): ServedKind[] {
    const kinds = new Map<string, ServedKind>();
    for (const layer of LAYERS) {
      for (const interpreters of this.layers.get(layer)?.values() ?? []) {
        for (const interpreter of interpreters) {
          for (const target of interpreter.targets) {
            const k = key(target.apiVersion, target.kind);
            const entry = kinds.get(k) ?? { ...target, operations: [] };
            for (const op of OPERATIONS) {
              if (typeof interpreter[OPERATION_METHOD[op]] === 'function' && !entry.operations.includes(op)) {
                entry.operations.push(op);
              }
            }
            kinds.set(k, entry);
          }
        }
      }
    }
    for (const entry of kinds.values()) entry.operations.sort((a, b) => OPERATIONS.indexOf(a) - OPERATIONS.indexOf(b));
    return [...kinds.values()].sort((a, b) => a.apiVersion.localeCompare(b.apiVersion) || a.kind.localeCompare(b.kind));
  }

  /** The interpreters of one kind across layers, highest precedence first (for docs and preservation rules). */
  interpretersFor(apiVersion: string, kind: string): Resolved[] {
    return LAYERS.flatMap((layer) => (this.layers.get(layer)?.get(key(apiVersion, kind)) ?? []).map((interpreter) => ({ interpreter, layer })));
  }
}
