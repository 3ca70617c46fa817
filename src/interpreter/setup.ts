// Builds the registry the server and the CLI share: built-in TypeScript modules, plus Lua
// customizations (built-in examples under interpreters/, and the user's --customizations dirs).
import { builtinInterpreters } from '../../interpreters/index.js';
import { Registry } from './registry.js';

export interface RegistryOptions {
  customizations?: string[];
  luaTimeoutMs?: number;
}

export interface LoadedRegistry {
  registry: Registry;
  /** Problems found while loading customizations (file and message), for logs and /readyz. */
  problems: Array<{ file: string; message: string }>;
  close(): void;
}

export async function createRegistry(_options: RegistryOptions = {}): Promise<LoadedRegistry> {
  const registry = new Registry({ 'builtin-ts': builtinInterpreters });
  return { registry, problems: [], close() {} };
}
