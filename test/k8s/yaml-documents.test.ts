// YAML read as sigs.k8s.io/yaml (go-yaml v2) reads it, for test cases, customization files and CLI inputs.
import { describe, expect, it } from 'vitest';
import { readYamlDocuments } from '../../src/k8s/yaml-documents.ts';

describe('readYamlDocuments', () => {
  it('folds a quoted scalar whose continuation is not indented past its key, as go-yaml does', () => {
    // As in Karmada's Flux Bucket testdata (go-yaml wraps long strings the same way).
    const text = `status:
  conditions:
  - message: 'invalid ''fake-secret'' secret data: required fields ''accesskey''
    and ''secretkey'''
    reason: Failed
  - message: "a long
    double-quoted message"
    reason: Other
`;
    expect(readYamlDocuments(text)).toEqual([
      {
        document: 1,
        value: {
          status: {
            conditions: [
              { message: "invalid 'fake-secret' secret data: required fields 'accesskey' and 'secretkey'", reason: 'Failed' },
              { message: 'a long double-quoted message', reason: 'Other' },
            ],
          },
        },
      },
    ]);
  });

  it('keeps the last of duplicate keys, as go-yaml v2 Unmarshal does', () => {
    expect(readYamlDocuments('a: 1\nb: {c: 1, c: 2}\na: 3\n')).toEqual([{ document: 1, value: { a: 3, b: { c: 2 } } }]);
  });

  it('resolves scalars with the YAML 1.2 core schema either way', () => {
    // The second document needs the go-yaml-compatible reading; its scalars must come out as in the first.
    const scalars = 'n: ~\nb: true\ns: yes\no: 0o17\nt: 2024-01-02T03:04:05Z\nf: 1.5\n';
    const [plain, wrapped] = readYamlDocuments(`${scalars}---\n${scalars}q: 'x\nq2'\n`);
    expect(plain!.value).toEqual({ n: null, b: true, s: 'yes', o: 15, t: '2024-01-02T03:04:05Z', f: 1.5 });
    expect(wrapped!.value).toEqual({ ...(plain!.value as object), q: 'x q2' });
  });

  it('reports a document neither reading accepts, with its position, and keeps the others', () => {
    const docs = readYamlDocuments('a: 1\n---\nb:\n  - x\n   y: [\n---\nc: 3\n');
    expect(docs.map((d) => d.document)).toEqual([1, 2, 3]);
    expect(docs[0]!.value).toEqual({ a: 1 });
    expect(docs[1]!.value).toBeUndefined();
    expect(docs[1]!.error).toMatch(/\S/);
    expect(docs[2]!.value).toEqual({ c: 3 });
  });

  it('does not retry a refused document that has aliases (js-yaml has no alias expansion limit)', () => {
    const text = "m:\n  a: &x [1, 2]\n  b: *x\n  q: 'wrapped\n  q2'\n";
    expect(readYamlDocuments(text.replace('*x', '[1, 2]').replace('&x ', ''))[0]!.value).toEqual({ m: { a: [1, 2], b: [1, 2], q: 'wrapped q2' } });
    const [doc] = readYamlDocuments(text);
    expect(doc!.value).toBeUndefined();
    expect(doc!.error).toMatch(/quote|single line/);
  });

  it('still limits aliases in documents it reads directly', () => {
    const bomb = 'a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: [*c, *c]\n';
    const [doc] = readYamlDocuments(bomb, { maxAliasCount: 3 });
    expect(doc!.error).toMatch(/alias/i);
  });
});
