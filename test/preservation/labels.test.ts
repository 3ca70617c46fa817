import { describe, expect, it } from 'vitest';
import { labelValueErrors, qualifiedNameErrors } from '../../src/preservation/labels.ts';

const LABEL_VALUE_REGEX_ERROR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const NAME_REGEX_ERROR =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const PREFIX_REGEX_ERROR =
  "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('labelValueErrors (IsValidLabelValue)', () => {
  it.each(['', 'web-6d9f', '3', 'ck-0042', 'A.b_c-1', 'x'.repeat(63), '1e-06', '9b2d0c51e3f04c8e8b1a6f7d2c3e4f50'])('%j is valid', (value) => {
    expect(labelValueErrors(value)).toEqual([]);
  });

  it.each(['2/4', 'ghcr.io/xline-kv/xline:v0.6.1', '-a', 'a-', '.a', 'a b', '{"a":1}', 'true false', 'é', '1e+06', '<nil>'])(
    '%j breaks the character rule',
    (value) => {
      expect(labelValueErrors(value)).toEqual([LABEL_VALUE_REGEX_ERROR]);
    },
  );

  it('counts bytes and reports both problems, in the API server order', () => {
    expect(labelValueErrors('x'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(labelValueErrors(`${'x'.repeat(63)}-`)).toEqual(['must be no more than 63 characters', LABEL_VALUE_REGEX_ERROR]);
  });
});

describe('qualifiedNameErrors (IsQualifiedName)', () => {
  it.each(['resume-from', 'failover.example.io/update-revision', 'example.com/MyName', 'a', 'my.name', '123-abc', `p/${'n'.repeat(63)}`])(
    '%j is valid',
    (name) => {
      expect(qualifiedNameErrors(name)).toEqual([]);
    },
  );

  it.each([
    ['', ['name part must be non-empty', NAME_REGEX_ERROR]],
    ['/name', ['prefix part must be non-empty']],
    ['Example.com/name', [PREFIX_REGEX_ERROR]],
    ['example.com/', ['name part must be non-empty', NAME_REGEX_ERROR]],
    ['-name', [NAME_REGEX_ERROR]],
    ['has space', [NAME_REGEX_ERROR]],
    ['n'.repeat(64), ['name part must be no more than 63 characters']],
    [`${'a'.repeat(254)}/n`, ['prefix part must be no more than 253 characters']],
    [
      'a/b/c',
      [
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ],
  ])('%j', (name, expected) => {
    expect(qualifiedNameErrors(name)).toEqual(expected);
  });
});
