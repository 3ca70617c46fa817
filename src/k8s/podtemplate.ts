// Pod-template helpers shared by the Lua `kube` module and the TypeScript kind modules.
// Requirements live in pod-requirements.ts, dependencies in pod-dependencies.ts.

export { karmadaPodRequirements, podTemplateRequirements } from './pod-requirements.js';
export { karmadaPodDependencies, podTemplateDependencies } from './pod-dependencies.js';
