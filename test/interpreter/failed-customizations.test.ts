// A user customization that failed to load answers "customization X failed to load" for the calls it
// would have answered, instead of a 404 "not served" or a silent fallback to a lower layer; and a kind
// of a shipped example that is not enabled says how to enable it (src/interpreter/registry.ts, dispatch.ts).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { interpret } from '../../src/interpreter/dispatch.ts';
import { Registry, type FailedCustomization } from '../../src/interpreter/registry.ts';
import { createRegistry } from '../../src/interpreter/setup.ts';
import type { KindInterpreter, KObject } from '../../src/interpreter/types.ts';

const WIDGET = { apiVersion: 'example.io/v1', kind: 'Widget' };
const widget: KObject = { ...WIDGET, metadata: { name: 'w' }, spec: { replicas: 2 } };
const typescript: KindInterpreter = { name: 'typescript:Widget', targets: [WIDGET], interpretHealth: () => true, getReplicas: () => ({ replicas: 2 }) };
const userLua: KindInterpreter = { name: 'lua:ok', targets: [WIDGET], reflectStatus: () => ({ ready: 1 }) };

function failure(operations: FailedCustomization['operations'], kind = 'Widget'): FailedCustomization {
  return {
    apiVersion: 'example.io/v1',
    kind,
    operations,
    customization: 'broken',
    file: '/c/broken.yaml',
    document: 2,
    message: 'unknown field "spec.luaScrpt" (did you mean luaScript?)',
  };
}

describe('failed customizations in the registry', () => {
  it('answer for the operations their document defines, over the TypeScript module, never over a working user script', async () => {
    const registry = new Registry({ 'user-lua': [userLua], 'builtin-ts': [typescript] });
    registry.setFailed([failure(['InterpretHealth', 'InterpretStatus'])]);
    const health = await interpret(registry, { ...WIDGET, operation: 'InterpretHealth', object: widget });
    expect(health).toEqual({
      ok: false,
      code: 500,
      message: 'customization broken failed to load: /c/broken.yaml document 2: unknown field "spec.luaScrpt" (did you mean luaScript?)',
    });
    // The last good user script keeps answering what it answers.
    expect(await interpret(registry, { ...WIDGET, operation: 'InterpretStatus', object: widget })).toMatchObject({ ok: true, layer: 'user-lua' });
    // An operation the failed document does not define fails too: it may be the one a misspelled field meant.
    expect(await interpret(registry, { ...WIDGET, operation: 'InterpretReplica', object: widget })).toMatchObject({
      ok: false,
      code: 500,
      message: expect.stringMatching(/^customization broken failed to load: /),
    });
    registry.setFailed([]);
    expect(await interpret(registry, { ...WIDGET, operation: 'InterpretHealth', object: widget })).toMatchObject({ ok: true, layer: 'builtin-ts' });
  });

  it('with no operation that could be read, answer for every operation of the kind, served or not', async () => {
    const registry = new Registry({ 'builtin-ts': [typescript] });
    registry.setFailed([failure([]), failure([], 'Gadget')]);
    expect(await interpret(registry, { ...WIDGET, operation: 'InterpretHealth', object: widget })).toMatchObject({ ok: false, code: 500 });
    const gadget = await interpret(registry, {
      apiVersion: 'example.io/v1',
      kind: 'Gadget',
      operation: 'InterpretHealth',
      object: { ...widget, kind: 'Gadget' },
    });
    expect(gadget).toMatchObject({
      ok: false,
      code: 500,
      message: expect.stringMatching(/^customization broken failed to load: \/c\/broken.yaml document 2: /),
    });
  });

  it('a kind of a shipped example that is not enabled: the 404 says how to enable it', async () => {
    const registry = new Registry({});
    registry.setDisabledExamples([{ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'Rollout.argoproj.io' }]);
    const outcome = await interpret(registry, {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      operation: 'InterpretHealth',
      object: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout' },
    });
    expect(outcome).toMatchObject({
      ok: false,
      code: 404,
      message: expect.stringContaining('a shipped example serves it when enabled (--examples Rollout.argoproj.io)'),
    });
  });
});

describe('createRegistry with a broken customization file', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('a misspelled field: every operation of the kind answers that the customization failed to load (issue 32)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kiw-failed-'));
    dirs.push(dir);
    const file = join(dir, 'widget.yaml');
    await writeFile(
      file,
      `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: widget}
spec:
  target: {apiVersion: example.io/v1, kind: Widget}
  customizations:
    replicaResource:
      luaScript: "function GetReplicas(o) return 1, {} end"
    healthInterpretations:
      luaScript: "function InterpretHealth(o) return true end"
`,
    );
    const loaded = await createRegistry({ customizations: [dir] });
    try {
      const expected = `customization widget failed to load: ${file} document 1: unknown field "spec.customizations.healthInterpretations" (did you mean healthInterpretation?)`;
      for (const operation of ['InterpretReplica', 'InterpretHealth', 'InterpretStatus'] as const) {
        expect(await interpret(loaded.registry, { ...WIDGET, operation, object: widget }), operation).toEqual({ ok: false, code: 500, message: expected });
      }
    } finally {
      await loaded.close();
    }
  });

  it('serves the other files, and calls for the broken kinds name the customization, file and document', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kiw-failed-'));
    dirs.push(dir);
    const broken = join(dir, 'deployment.yaml');
    await writeFile(
      broken,
      `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: my-deployment}
spec:
  target: {apiVersion: apps/v1, kind: Deployment}
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          return observedObj.status.readyReplicas ==
        end
`,
    );
    // A CloneSet override whose script compiles but whose file has a misspelled field: the TypeScript
    // module must not silently answer in its place.
    await writeFile(
      join(dir, 'cloneset.yaml'),
      `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: my-cloneset-health}
spec:
  target: {apiVersion: apps.kruise.io/v1alpha1, kind: CloneSet}
  customizations:
    healthInterpretation:
      luaScript: "function InterpretHealth(o) return true end"
    statusReflections:
      luaScript: "function ReflectStatus(o) return {} end"
`,
    );
    const loaded = await createRegistry({ customizations: [dir] });
    try {
      expect(loaded.problems.map((p) => p.message)).toEqual([
        'document 1 (my-cloneset-health): unknown field "spec.customizations.statusReflections" (did you mean statusReflection?)',
        "document 1 (my-deployment): healthInterpretation (InterpretHealth): script line 3 (line 11 of the file): unexpected symbol near 'end'",
      ]);
      const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } };
      expect(await interpret(loaded.registry, { apiVersion: 'apps/v1', kind: 'Deployment', operation: 'InterpretHealth', object: deployment })).toMatchObject({
        ok: false,
        code: 500,
        message: `customization my-deployment failed to load: ${broken} document 1: healthInterpretation (InterpretHealth): script line 3 (line 11 of the file): unexpected symbol near 'end'`,
      });
      const cloneSet = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'c' }, spec: { replicas: 1 } };
      expect(
        await interpret(loaded.registry, { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', operation: 'InterpretHealth', object: cloneSet }),
      ).toMatchObject({
        ok: false,
        message: expect.stringMatching(/^customization my-cloneset-health failed to load: .*cloneset\.yaml document 1: unknown field/),
      });
      // statusReflections: meant InterpretStatus, which the TypeScript module must not answer silently; nor any other operation.
      for (const operation of ['InterpretStatus', 'InterpretReplica'] as const) {
        expect(await interpret(loaded.registry, { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', operation, object: cloneSet })).toMatchObject({
          ok: false,
          message: expect.stringMatching(/^customization my-cloneset-health failed to load: /),
        });
      }
      // Not served, so not registered with Karmada either: Karmada keeps its own interpreters for Deployment.
      expect(loaded.registry.served().some((s) => s.kind === 'Deployment')).toBe(false);
    } finally {
      await loaded.close();
    }
  });
});
