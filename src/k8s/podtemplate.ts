// Pod-template helpers shared by the Lua `kube` module and the TypeScript kind modules.
// Requirements live in pod-requirements.ts, dependencies in pod-dependencies.ts.

export { karmadaPodRequirements, podTemplateRequirements } from './pod-requirements.ts';
export { karmadaPodDependencies, podTemplateDependencies } from './pod-dependencies.ts';
