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

type Index = Map<string, KindInterpreter[]>;

const key = (apiVersion: string, kind: string) => `${apiVersion}\u0000${kind}`;

export class Registry {
  private readonly layers = new Map<LayerName, Index>();

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
    return LAYERS.flatMap((layer) =>
      (this.layers.get(layer)?.get(key(apiVersion, kind)) ?? []).map((interpreter) => ({ interpreter, layer })),
    );
  }
}
