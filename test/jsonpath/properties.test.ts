import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { executeJsonPath } from '../../src/jsonpath/index.ts';
import { marshalGoJson } from '../../src/jsonpath/print-values.ts';

describe('marshalGoJson properties', () => {
  it('produces JSON that parses back to the same value, with sorted keys', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const normalized = JSON.parse(JSON.stringify(value)); // what Karmada decodes (no -0)
        const text = marshalGoJson(normalized);
        expect(JSON.parse(text)).toEqual(normalized);
        expect(text).not.toMatch(/[<>&]/);
      }),
      { numRuns: 2000 },
    );
  });

  it('prints a whole map through {@} exactly as marshalGoJson does', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const normalized = JSON.parse(JSON.stringify(value));
        expect(executeJsonPath('{@}', normalized)).toBe(marshalGoJson(normalized));
      }),
      { numRuns: 500 },
    );
  });
});

describe('template properties', () => {
  it('text without braces is printed verbatim', () => {
    fc.assert(
      fc.property(
        fc.string().filter((text) => !text.includes('{')),
        (text) => {
          expect(executeJsonPath(text, { a: 1 })).toBe(text);
        },
      ),
    );
  });

  it('{.key} of a simple key prints strings raw', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,20}$/), fc.string(), (key, value) => {
        expect(executeJsonPath(`{.${key}}`, { [key]: value })).toBe(
          value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'),
        );
      }),
    );
  });
});
