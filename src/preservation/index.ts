export { evaluatePreservation, MAX_PRESERVATION_VALUES, type EvaluateOptions, type PreservationResult, type RuleMessage } from './evaluate.ts';
export { labelValueErrors, qualifiedNameErrors } from './labels.ts';
export { MAX_PRESERVATION_RULES, PreservationInputError, rulesFromPolicy, validateRules } from './policy.ts';
export { preserveForObject, rulesFromInput, type EvaluateRules, type PreserveInput, type ReflectStatus } from './preserve.ts';
