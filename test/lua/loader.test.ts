import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { InterpreterError } from '../../src/interpreter/types.ts';
import { findBuiltinCustomizationFiles } from '../../src/customizations/files.ts';
import { loadCustomizations } from '../../src/customizations/loader.ts';
import { FakeLuaScriptError, FakeRuntime } from './fake-runtime.ts';

const WIDGET = { apiVersion: 'example.io/v1', kind: 'Widget' };

function ric(name: string, customizations: Record<string, string>, target: Record<string, string> = WIDGET) {
  return {
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterCustomization',
    metadata: { name },
    spec: {
      target,
      customizations: Object.fromEntries(Object.entries(customizations).map(([f, s]) => [f, { luaScript: s }])),
    },
  };
}

const widget = { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns' }, spec: { size: 3 } };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ric-loader-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(relative: string, ...docs: object[]) {
  const path = join(dir, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, docs.map((d) => stringify(d)).join('---\n'));
  return path;
}

describe('loadCustomizations: merge', () => {
  it('processes RICs in metadata.name order, whatever the file order: the first non-empty script wins', async () => {
    // z-file holds the alphabetically first RIC name.
    write('a.yaml', ric('b-second', { replicaResource: 'replicas-from-b', healthInterpretation: 'health-from-b' }));
    write('z.yaml', ric('a-first', { replicaResource: 'replicas-from-a' }));
    const runtime = new FakeRuntime({
      'replicas-from-a': { replicas: 1 },
      'replicas-from-b': { replicas: 2 },
      'health-from-b': true,
    });
    const result = await loadCustomizations([dir], { runtime });

    expect(result.errors).toEqual([]);
    expect(result.interpreters).toHaveLength(1);
    const [widgetInterpreter] = result.interpreters;
    expect(widgetInterpreter.name).toBe('lua:a-first,b-second');
    expect(widgetInterpreter.targets).toEqual([WIDGET]);
    expect(await widgetInterpreter.getReplicas!(widget)).toEqual({ replicas: 1 });
    // A field only the later RIC sets is still taken from it.
    expect(await widgetInterpreter.interpretHealth!(widget)).toBe(true);
    expect(widgetInterpreter.sources).toEqual({ InterpretReplica: ['a-first'], InterpretHealth: ['b-second'] });
    expect(result.warnings).toEqual([
      {
        file: join(dir, 'a.yaml'),
        message: 'customization b-second: replicaResource for example.io/v1 Widget is ignored: customization a-first sets it and sorts first',
      },
    ]);
  });

  it('lets a later RIC fill a field whose earlier script is empty', async () => {
    write('r.yaml', ric('a', { retention: '', statusReflection: '' }), ric('b', { retention: 'retain-b' }));
    const runtime = new FakeRuntime({ 'retain-b': { ...widget, spec: { size: 5 } } });
    const { interpreters } = await loadCustomizations([dir], { runtime });
    const [w] = interpreters;
    expect(await w.retain!(widget, widget)).toEqual({ ...widget, spec: { size: 5 } });
    expect(w.reflectStatus).toBeUndefined();
    expect(w.operations).toEqual(['Retain']);
  });

  it('keys targets by the exact apiVersion and kind', async () => {
    write('t.yaml', ric('v1', { healthInterpretation: 'h1' }), ric('v2', { healthInterpretation: 'h2' }, { apiVersion: 'example.io/v2', kind: 'Widget' }));
    const runtime = new FakeRuntime({ h1: true, h2: false });
    const { interpreters } = await loadCustomizations([dir], { runtime });
    expect(interpreters.map((i) => [i.targets[0].apiVersion, i.name])).toEqual([
      ['example.io/v1', 'lua:v1'],
      ['example.io/v2', 'lua:v2'],
    ]);
  });

  it('runs every dependencyInterpretation script and returns the union, de-duplicated and sorted', async () => {
    write('d1.yaml', ric('deps-b', { dependencyInterpretation: 'deps-b' }));
    write('d2.yaml', ric('deps-a', { dependencyInterpretation: 'deps-a' }), ric('deps-c', { dependencyInterpretation: '' }));
    const secret = { apiVersion: 'v1', kind: 'Secret', namespace: 'ns', name: 's' };
    const configMapB = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'b' };
    const configMapA = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'a' };
    const selected = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', labelSelector: { matchLabels: { app: 'w' } } };
    const clusterRole = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'viewer' };
    const runtime = new FakeRuntime({
      'deps-a': [secret, configMapB, selected],
      'deps-b': [configMapA, { ...secret }, clusterRole, { ...selected, labelSelector: { matchLabels: { app: 'w' } } }],
    });
    const { interpreters } = await loadCustomizations([dir], { runtime });
    const deps = await interpreters[0].getDependencies!(widget);
    expect(deps).toEqual([clusterRole, selected, configMapA, configMapB, secret]);
    expect(runtime.calls.map((c) => c.script)).toEqual(['deps-a', 'deps-b']);
    expect(interpreters[0].sources).toEqual({ InterpretDependency: ['deps-a', 'deps-b'] });
  });

  it('stops at the first failing dependency script, naming its customization', async () => {
    const file = write('d.yaml', ric('a', { dependencyInterpretation: 'ok' }), ric('b', { dependencyInterpretation: 'boom' }));
    const runtime = new FakeRuntime({ ok: [], boom: new FakeLuaScriptError('attempt to index a nil value', 4) });
    const { interpreters } = await loadCustomizations([dir], { runtime });
    // `boom` is a one-line value: every script line is on its line of the file.
    const line = readFileSync(file, 'utf8').split('\n').indexOf('      luaScript: boom') + 1;
    await expect(interpreters[0].getDependencies!(widget)).rejects.toThrow(
      `customization b: GetDependencies: script line 4 (${file} line ${line}): attempt to index a nil value`,
    );
  });

  it('passes arguments through to the runtime and serves only operations with a script', async () => {
    write(
      'all.yaml',
      ric('all', {
        retention: 'ret',
        replicaResource: 'rr',
        componentResource: 'comp',
        replicaRevision: 'rv',
        statusReflection: 'refl',
        statusAggregation: 'agg',
        healthInterpretation: 'health',
        dependencyInterpretation: 'dep',
      }),
    );
    const runtime = new FakeRuntime({
      ret: widget,
      rr: { replicas: 3 },
      comp: [{ name: 'main', replicas: 3 }],
      rv: widget,
      refl: { ready: 1 },
      agg: widget,
      health: false,
      dep: [],
    });
    const [w] = (await loadCustomizations([join(dir, 'all.yaml')], { runtime })).interpreters;
    expect(w.operations).toEqual([
      'Retain',
      'InterpretReplica',
      'InterpretComponent',
      'ReviseReplica',
      'InterpretStatus',
      'AggregateStatus',
      'InterpretHealth',
      'InterpretDependency',
    ]);
    const observed = { ...widget, status: { ready: 1 } };
    await w.retain!(widget, observed);
    await w.getComponents!(widget);
    await w.reviseReplica!(widget, 7);
    await w.aggregateStatus!(widget, undefined);
    await w.aggregateStatus!(widget, []);
    expect(runtime.calls.map((c) => [c.method, c.script, c.args])).toEqual([
      ['retain', 'ret', [widget, observed]],
      ['getComponents', 'comp', [widget]],
      ['reviseReplica', 'rv', [widget, 7]],
      ['aggregateStatus', 'agg', [widget, undefined]],
      ['aggregateStatus', 'agg', [widget, []]],
    ]);
  });
});

describe('loadCustomizations: errors', () => {
  it('rejects a whole file with a script that does not compile, and still loads the others', async () => {
    const bad = write(
      'bad.yaml',
      ric('bad-ok-part', { healthInterpretation: 'fine' }, { apiVersion: 'v1', kind: 'Pod' }),
      ric('bad-broken', { statusReflection: 'function ReflectStatus(o)\n  SYNTAX ERROR\nend' }),
    );
    write('good.yaml', ric('good', { healthInterpretation: 'h' }));
    const runtime = new FakeRuntime({ h: true });
    const result = await loadCustomizations([dir], { runtime });

    expect(result.errors).toEqual([
      { file: bad, message: `document 2 (bad-broken): statusReflection (ReflectStatus): script line 2 (line 25 of the file): unexpected symbol near 'ERROR'` },
    ]);
    // The script is a literal block: its line 2 is the file's line 25.
    expect(readFileSync(bad, 'utf8').split('\n')[24]).toContain('SYNTAX ERROR');
    expect(result.interpreters.map((i) => i.name)).toEqual(['lua:good']);
    expect(result.summary).toMatchObject({ files: 2, customizations: 1, targets: 1, scripts: 1, errors: 1, rejectedFiles: 1 });
  });

  it('reports invalid YAML and missing paths with file and document; skips objects of other kinds with a warning', async () => {
    const mixed = write('mixed.yaml', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } }, ric('fine', { healthInterpretation: 'h' }));
    const broken = join(dir, 'broken.yml');
    writeFileSync(broken, 'apiVersion: [\n');
    const runtime = new FakeRuntime();
    const result = await loadCustomizations([dir, join(dir, 'nope')], { runtime });
    expect(result.errors).toEqual([
      { file: join(dir, 'nope'), message: 'no such file or directory' },
      {
        file: broken,
        message: 'document 1: invalid YAML: line 1: Flow sequence in block collection must be sufficiently indented and end with a ]: "apiVersion: ["',
      },
    ]);
    // Same rule as `check`: a ConfigMap beside the customizations is not an error, and the file's RIC loads.
    expect(result.warnings).toEqual([{ file: mixed, message: 'document 1 (cm): skipped: not a ResourceInterpreterCustomization, got /v1, Kind=ConfigMap' }]);
    expect(result.interpreters.map((i) => i.name)).toEqual(['lua:fine']);
    expect(result.summary.errors).toBe(2);
  });

  it('refuses unknown fields and a misspelled kind, naming the field with a suggestion; the kind answers that it failed to load', async () => {
    const typo = write('typo.yaml', {
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterCustomization',
      metadata: { name: 'typo' },
      spec: { target: WIDGET, customizations: { healthInterpretations: { luaScript: 'h' }, replicaResource: { luaScrpt: 'r' } } },
    });
    const kind = write('kind.yaml', {
      ...ric('kind-typo', { healthInterpretation: 'h' }, { apiVersion: 'v1', kind: 'Pod' }),
      kind: 'ResourceInterpreterCustomisation',
    });
    const result = await loadCustomizations([dir], { runtime: new FakeRuntime({ h: true }) });
    expect(result.errors).toEqual([
      {
        file: kind,
        message:
          'document 1 (kind-typo): not a ResourceInterpreterCustomization, got config.karmada.io/v1alpha1, Kind=ResourceInterpreterCustomisation (did you mean kind: ResourceInterpreterCustomization?)',
      },
      {
        file: typo,
        message:
          'document 1 (typo): unknown field "spec.customizations.healthInterpretations" (did you mean healthInterpretation?); unknown field "spec.customizations.replicaResource.luaScrpt" (did you mean luaScript?)',
      },
    ]);
    expect(result.interpreters).toEqual([]);
    // The target could be read: calls for Widget can say the customization failed instead of "not served".
    expect(result.failed).toEqual([
      {
        ...WIDGET,
        operations: [],
        customization: 'typo',
        file: typo,
        document: 1,
        message: expect.stringContaining('unknown field "spec.customizations.healthInterpretations"'),
      },
    ]);
  });

  it('gives Lua compile errors with the line of the file, and a hint when `luaScript: >` folded the lines', async () => {
    const file = join(dir, 'lines.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: config.karmada.io/v1alpha1', // 1
        'kind: ResourceInterpreterCustomization', // 2
        'metadata: {name: lines}', // 3
        'spec:', // 4
        '  target: {apiVersion: example.io/v1, kind: Widget}', // 5
        '  customizations:', // 6
        '    statusReflection:', // 7
        '      luaScript: |', // 8
        '        function ReflectStatus(o)', // 9
        '          SYNTAX ERROR', // 10
        '        end', // 11
        '    healthInterpretation:', // 12
        '      luaScript: >', // 13
        '        -- healthy when ready', // 14
        '        function InterpretHealth(o)', // 15
        '          SYNTAX ERROR', // 16
        '        end', // 17
        '',
      ].join('\n'),
    );
    const result = await loadCustomizations([file], { runtime: new FakeRuntime() });
    expect(result.errors.map((e) => e.message)).toEqual([
      "document 1 (lines): statusReflection (ReflectStatus): script line 2 (line 10 of the file): unexpected symbol near 'ERROR'",
      expect.stringMatching(
        /^document 1 \(lines\): healthInterpretation \(InterpretHealth\): script line 2 \(the script starts at line 14 of the file\): unexpected symbol near 'ERROR' \(hint: "luaScript: >" folds lines .* write "luaScript: \|"/,
      ),
    ]);
    expect(result.failed.map((f) => [f.kind, f.operations])).toEqual([['Widget', ['InterpretStatus', 'InterpretHealth']]]);
  });

  it('turns script errors into InterpreterError 500 naming customization, function and line; timeouts say so', async () => {
    write('e.yaml', ric('my-ric', { replicaResource: 'rr', healthInterpretation: 'slow', statusReflection: 'bug' }));
    const runtime = new FakeRuntime({
      rr: new FakeLuaScriptError("attempt to perform arithmetic on a nil value (field 'replicas')", 3, 'GetReplicas'),
      slow: new FakeLuaScriptError('script exceeded 1000 ms', 2, 'InterpretHealth', true),
      bug: new TypeError('our own bug'),
    });
    const [w] = (await loadCustomizations([dir], { runtime })).interpreters;

    const replicaError = await Promise.resolve(w.getReplicas!(widget)).catch((e) => e);
    expect(replicaError).toBeInstanceOf(InterpreterError);
    expect(replicaError.code).toBe(500);
    const file = join(dir, 'e.yaml');
    const lineOf = (script: string) => readFileSync(file, 'utf8').split('\n').indexOf(`      luaScript: ${script}`) + 1;
    expect(replicaError.message).toBe(
      `customization my-ric: GetReplicas: script line 3 (${file} line ${lineOf('rr')}): attempt to perform arithmetic on a nil value (field 'replicas')`,
    );
    await expect(w.interpretHealth!(widget)).rejects.toThrow(
      `customization my-ric: InterpretHealth: script line 2 (${file} line ${lineOf('slow')}): timeout: script exceeded 1000 ms`,
    );
    // Not a script error: left as is, so the dispatcher treats it as a bug of ours.
    await expect(w.reflectStatus!(widget)).rejects.toThrow(TypeError);
  });

  it('forwards print output and the deadline to the runtime', async () => {
    write('p.yaml', ric('printer', { healthInterpretation: 'h' }));
    const runtime = new FakeRuntime({ h: true });
    const printed: unknown[] = [];
    const [w] = (await loadCustomizations([dir], { runtime, timeoutMs: 250, onPrint: (line, source) => printed.push([line, source]) })).interpreters;
    await w.interpretHealth!(widget);
    const options = runtime.calls[0].options!;
    expect(options.timeoutMs).toBe(250);
    options.onPrint!('hello');
    expect(printed).toEqual([['hello', { customization: 'printer', functionName: 'InterpretHealth' }]]);
  });
});

describe('file discovery', () => {
  it('walks directories for *.yaml, *.yml and *.json, skipping testdata, test lists and dot entries, following symlinks', async () => {
    write('nested/deeper/one.yml', ric('one', { healthInterpretation: 'h' }));
    write('nested/customizations_tests.yaml', { tests: [{ desiredInputPath: 'testdata/desired.yaml', operation: 'InterpretHealth' }] });
    write('two.json', ric('two', { healthInterpretation: 'h' }, { apiVersion: 'v1', kind: 'Pod' }));
    write('nested/testdata/case.yaml', { name: 'not a RIC', operation: 'InterpretHealth' });
    write('..2026_01_01/three.yaml', ric('three', { healthInterpretation: 'h' }, { apiVersion: 'v1', kind: 'Service' }));
    symlinkSync(join(dir, '..2026_01_01'), join(dir, '..data'));
    symlinkSync(join(dir, '..data', 'three.yaml'), join(dir, 'three.yaml'));
    write('notes.txt', { not: 'read' });
    const result = await loadCustomizations([dir], { runtime: new FakeRuntime() });
    expect(result.files).toEqual(['nested/deeper/one.yml', 'three.yaml', 'two.json'].map((f) => join(dir, f)));
    expect(result.errors).toEqual([]);
    expect(result.interpreters.map((i) => i.name).sort()).toEqual(['lua:one', 'lua:three', 'lua:two']);
  });

  it('finds only customizations.yaml outside testdata for the built-in tree', () => {
    write('g.io/v1/A/customizations.yaml', ric('a', {}));
    write('g.io/v1/A/testdata/customizations.yaml', ric('x', {}));
    write('g.io/v1/A/other.yaml', ric('y', {}));
    expect(findBuiltinCustomizationFiles(dir)).toEqual([join(dir, 'g.io/v1/A/customizations.yaml')]);
  });
});
