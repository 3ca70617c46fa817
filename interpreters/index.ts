// The built-in TypeScript interpreters. The webhook configuration printed by `webhook-config` is
// generated from this list (plus loaded Lua customizations), so what Karmada is told we serve can
// never drift from what the server implements. Add one import and one entry per kind module.
import type { KindInterpreter } from '../src/interpreter/types.js';

export const builtinInterpreters: KindInterpreter[] = [
];
