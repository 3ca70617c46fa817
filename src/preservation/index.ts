export { evaluatePreservation, type EvaluateOptions, type PreservationResult, type RuleMessage } from './evaluate.js';
export { labelValueErrors, qualifiedNameErrors } from './labels.js';
export { PreservationInputError, rulesFromPolicy, validateRules } from './policy.js';
export { preserveForObject, rulesFromInput, type PreserveInput, type ReflectStatus } from './preserve.js';
