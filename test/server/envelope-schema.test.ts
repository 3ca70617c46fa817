// The envelope schema is compiled at start-up without meta-schema validation (it costs ~45 ms of
// every start); this is where it is checked against the JSON Schema meta-schema instead.
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { envelopeSchema } from '../../src/protocol/schema.ts';

describe('envelope schema', () => {
  it('is a valid JSON Schema that strict ajv compiles', () => {
    const ajv = new Ajv({ strict: true });
    expect(ajv.validateSchema(envelopeSchema), ajv.errorsText()).toBe(true);
    expect(() => ajv.compile(envelopeSchema)).not.toThrow();
  });

  it('is caught by the meta-schema when broken, so the check above can fail', () => {
    const ajv = new Ajv({ strict: true });
    expect(ajv.validateSchema({ ...envelopeSchema, required: 'request' })).toBe(false);
  });
});
