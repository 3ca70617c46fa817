// ajv validation of the request envelope. Only the envelope is checked: the embedded Kubernetes
// objects are declared as plain objects and never pruned, coerced or defaulted.
import { Ajv, type ErrorObject } from 'ajv';
import type { InterpreterContext } from './wire.ts';
import { CONTEXT_API_VERSION, CONTEXT_KIND } from './wire.ts';

const kubeObject = { type: 'object' } as const;

// Identifying fields are echoed in answers and logs: longer than any Kubernetes name (DNS subdomains are
// at most 253 characters; Karmada's uids are UUIDs) is refused rather than repeated.
const MAX_NAME_LENGTH = 253;
const MAX_UID_LENGTH = 128;

export const envelopeSchema = {
  type: 'object',
  required: ['request'],
  properties: {
    apiVersion: { type: 'string', const: CONTEXT_API_VERSION },
    kind: { type: 'string', const: CONTEXT_KIND },
    request: {
      type: 'object',
      required: ['uid', 'kind', 'operation', 'object'],
      properties: {
        uid: { type: 'string', minLength: 1, maxLength: MAX_UID_LENGTH },
        kind: {
          type: 'object',
          required: ['version', 'kind'],
          properties: {
            group: { type: 'string', maxLength: MAX_NAME_LENGTH },
            version: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH },
            kind: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH },
          },
        },
        name: { type: 'string', maxLength: MAX_NAME_LENGTH },
        namespace: { type: 'string', maxLength: MAX_NAME_LENGTH },
        operation: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH },
        object: kubeObject,
        observedObject: kubeObject,
        replicas: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
        aggregatedStatus: {
          type: 'array',
          items: {
            type: 'object',
            required: ['clusterName'],
            properties: {
              clusterName: { type: 'string', maxLength: MAX_NAME_LENGTH },
              status: { type: ['object', 'null'] },
              applied: { type: 'boolean' },
              appliedMessage: { type: 'string' },
              health: { type: 'string' },
            },
          },
        },
      },
    },
  },
} as const;

// allErrors off: the first problem is enough for a clear message and keeps validation cheap.
// validateSchema off: checking this fixed schema against the JSON Schema meta-schema compiles the
// meta-schema first, at every start; test/server/envelope-schema.test.ts checks it once instead.
const ajv = new Ajv({ allErrors: false, coerceTypes: false, useDefaults: false, removeAdditional: false, strict: true, validateSchema: false });
const validateEnvelope = ajv.compile<InterpreterContext>(envelopeSchema);

/** Returns undefined when valid, else a message naming the offending field. */
export function envelopeProblem(body: unknown): string | undefined {
  if (validateEnvelope(body)) return undefined;
  return describe(validateEnvelope.errors?.[0]);
}

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'invalid ResourceInterpreterContext';
  const base = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '';
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return `invalid ResourceInterpreterContext: ${base ? `${base}.` : ''}${missing} is required`;
  }
  if (error.keyword === 'const') {
    const allowed = (error.params as { allowedValue: unknown }).allowedValue;
    return `invalid ResourceInterpreterContext: ${base} must be ${JSON.stringify(allowed)}`;
  }
  return `invalid ResourceInterpreterContext: ${base || 'body'} ${error.message ?? 'is invalid'}`;
}
