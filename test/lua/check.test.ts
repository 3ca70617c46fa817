import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/check.ts';
import { alignColumns, checkCustomizationFiles } from '../../src/customizations/check.ts';
import { FakeRuntime } from './fake-runtime.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ric-check-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const CHECKED = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: customization-check
spec:
  target:
    apiVersion: apps/v1
    kind: Deployment
  customizations:
    retention:
      luaScript: >
        function Retain(desiredObj, observedObj)
          desiredObj.spec.paused = observedObj.spec.paused
          return desiredObj
        end
    replicaResource:
      luaScript: |
        function GetReplicas(desiredObj)
          SYNTAX ERROR
        end
    statusReflection:
      luaScript: ""
`;

const NOT_RICS = `apiVersion: v1
kind: Pod
metadata:
  name: not-customization
---
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: kind-unset
spec:
  target:
    apiVersion: apps/v1
`;

describe('checkCustomizationFiles', () => {
  it("prints karmadactl's layout: SOURCE, TARGET, and UNSET / PASS / ERROR per rule, aligned like kubectl's tab writer", () => {
    const file = join(dir, 'check.yaml');
    writeFileSync(file, CHECKED);
    const { output, ok } = checkCustomizationFiles([file], new FakeRuntime());
    expect(ok).toBe(false);
    expect(output).toBe(
      [
        '-----------------------------------',
        `SOURCE: customization-check (${file} document 1)`,
        'TARGET: apps/v1 Deployment   ',
        'RULERS:',
        '    Retain:                  PASS',
        `    InterpretReplica:        ERROR: script line 2 (${file} line 19): unexpected symbol near 'ERROR'   `,
        '    InterpretComponent:      UNSET',
        '    ReviseReplica:           UNSET',
        '    InterpretStatus:         UNSET',
        '    AggregateStatus:         UNSET',
        '    InterpretHealth:         UNSET',
        '    InterpretDependency:     UNSET',
        '',
      ].join('\n'),
    );
  });

  it('reports invalid customizations and fails; skips objects of other kinds with a warning, as serve does', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, NOT_RICS);
    const { output, ok } = checkCustomizationFiles([dir], new FakeRuntime());
    expect(ok).toBe(false);
    expect(output).toBe(
      [
        '-----------------------------------',
        `SOURCE: ${file} document 1`,
        `WARNING: ${file} document 1: skipped: not a ResourceInterpreterCustomization, got /v1, Kind=Pod`,
        '-----------------------------------',
        `SOURCE: kind-unset (${file} document 2)`,
        `${file} document 2: spec.target.kind is not set`,
        '',
      ].join('\n'),
    );
    writeFileSync(file, NOT_RICS.split('---')[0]!);
    expect(checkCustomizationFiles([dir], new FakeRuntime()).ok).toBe(true);
  });

  it('refuses misspelled fields anywhere in the object, naming each with a suggestion', () => {
    writeFileSync(
      join(dir, 'typo.yaml'),
      `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: typo
spec:
  taget:
    apiVersion: apps/v1
  target:
    apiVersion: apps/v1
    kind: Deployment
    knd: x
  customizations:
    healthInterpretations:
      luaScript: "function InterpretHealth(o) return true end"
    replicaResource:
      luaScrpt: "function GetReplicas(o) return 1 end"
`,
    );
    const { output, ok } = checkCustomizationFiles([dir], new FakeRuntime());
    expect(ok).toBe(false);
    expect(output).toBe(
      [
        '-----------------------------------',
        `SOURCE: typo (${join(dir, 'typo.yaml')} document 1)`,
        `${join(dir, 'typo.yaml')} document 1: unknown field "spec.taget" (did you mean target?); unknown field "spec.target.knd" (did you mean kind?); ` +
          'unknown field "spec.customizations.healthInterpretations" (did you mean healthInterpretation?); ' +
          'unknown field "spec.customizations.replicaResource.luaScrpt" (did you mean luaScript?)',
        '',
      ].join('\n'),
    );
  });

  it('passes when every script compiles', () => {
    writeFileSync(join(dir, 'ok.yaml'), CHECKED.replace('SYNTAX ERROR', 'return 1'));
    const { output, ok } = checkCustomizationFiles([dir], new FakeRuntime());
    expect(ok).toBe(true);
    expect(output).toContain('    InterpretReplica:        PASS\n');
  });

  it('names the file as its path was given, and the document, in every message (issue 32)', () => {
    writeFileSync(join(dir, 'multi.yaml'), `${NOT_RICS}---\n${CHECKED}`);
    const given = relative(process.cwd(), dir);
    const { output, ok } = checkCustomizationFiles([given], new FakeRuntime());
    expect(ok).toBe(false);
    const file = join(given, 'multi.yaml');
    expect(output).toContain(`SOURCE: ${file} document 1\nWARNING: ${file} document 1: skipped:`);
    expect(output).toContain(`SOURCE: kind-unset (${file} document 2)\n${file} document 2: spec.target.kind is not set\n`);
    expect(output).toContain(`SOURCE: customization-check (${file} document 3)\n`);
    expect(output).toMatch(new RegExp(`InterpretReplica: +ERROR: script line 2 \\(${file.replace(/[.\\/]/g, '\\$&')} line 32\\): `));
    expect(output).not.toContain('of the file');
  });

  it('fails for a path that does not exist', () => {
    const { output, ok } = checkCustomizationFiles([join(dir, 'missing')], new FakeRuntime());
    expect(ok).toBe(false);
    expect(output).toBe(`error: the path "${join(dir, 'missing')}" does not exist\n`);
  });
});

describe('alignColumns', () => {
  it('pads each column block to its widest cell plus 3, never narrower than an earlier block (RememberWidths)', () => {
    expect(alignColumns('ab\tx\nabcdefgh\ty\nbreak\nc\tz')).toBe('ab         x\nabcdefgh   y\nbreak\nc          z');
    expect(alignColumns('a\tb\tc\naa\t\tdd')).toBe('a     b     c\naa          dd');
  });
});

describe('check command', () => {
  it('exits 0 when everything compiles, 1 on errors, 2 without paths', async () => {
    writeFileSync(join(dir, 'ok.yaml'), CHECKED.replace('SYNTAX ERROR', 'return 1'));
    const out: string[] = [];
    const err: string[] = [];
    const deps = { runtime: new FakeRuntime(), stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) };
    expect(await run([dir], deps)).toBe(0);
    expect(out.join('')).toContain('SOURCE: customization-check');

    writeFileSync(join(dir, 'bad.yaml'), NOT_RICS);
    expect(await run([dir], deps)).toBe(1);

    expect(await run([], deps)).toBe(2);
    expect(err.join('')).toContain('at least one PATH is required');
    expect(await run(['--bogus', dir], deps)).toBe(2);
    out.length = 0;
    expect(await run(['--help'], deps)).toBe(0);
    expect(out.join('')).toContain('Usage: karmada-interpreter check PATH...');
  });

  it('compiles with the real Lua runtime by default: the shipped examples pass', async () => {
    const out: string[] = [];
    const examples = ['interpreters/argoproj.io/v1alpha1/Rollout', 'interpreters/keda.sh/v1alpha1/ScaledObject'];
    expect(await run(examples, { stdout: (t) => out.push(t) })).toBe(0);
    expect(out.join('')).toContain('SOURCE: example-argo-rollout');
    expect(out.join('')).toContain('SOURCE: example-keda-scaledobject');
    expect(out.join('')).not.toContain('ERROR');
  });
});
