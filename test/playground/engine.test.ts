// The playground's engine on the server's real registry and worker pool: every operation for the page's
// inputs, a pasted customization layered over the built-ins, its errors at the editor's own lines,
// imports and an export that `karmada-interpreter test` passes.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadCustomizations } from '../../src/customizations/loader.ts';
import { createRegistry } from '../../src/interpreter/setup.ts';
import { importText, SampleLibrary } from '../../src/playground/cases.ts';
import { PlaygroundEngine, type RunResponse } from '../../src/playground/engine.ts';
import { cli } from '../cli/run-cli.ts';

const loaded = await createRegistry();
const engine = new PlaygroundEngine({ loaded });
const scratch = await mkdtemp(join(tmpdir(), 'playground-engine-test-'));
afterAll(async () => {
  await loaded.close();
  await rm(scratch, { recursive: true, force: true });
});

const cloneSet = {
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name: 'web', namespace: 'shop', generation: 5 },
  spec: {
    replicas: 4,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
  },
};
const member = { ...cloneSet, status: { observedGeneration: 5, replicas: 4, updatedReplicas: 4, readyReplicas: 4, availableReplicas: 4 } };
const item = (cluster: string) =>
  stringify({ clusterName: cluster, applied: true, health: 'Healthy', status: { replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2 } });

const op = (run: RunResponse, name: string) => run.operations.find((o) => o.operation === name)!;

const RIC = (healthScript: string) => `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: cloneset-health
spec:
  target:
    apiVersion: apps.kruise.io/v1alpha1
    kind: CloneSet
  customizations:
    healthInterpretation:
      luaScript: |
${healthScript
  .split('\n')
  .map((line) => `        ${line}`)
  .join('\n')}
`;

describe('playground engine', () => {
  it('answers every operation through the registry, saying which layer answered and how long it took', async () => {
    const run = await engine.run({ template: stringify(cloneSet), member: stringify(member), statusItems: [item('m1'), item('m2')], replicas: 2 });
    expect(run.kind).toBe('CloneSet');
    expect(op(run, 'InterpretHealth')).toMatchObject({ ok: true, layer: 'builtin-ts', results: { healthy: true } });
    expect(op(run, 'InterpretHealth').answeredBy).toMatch(/^the TypeScript module/);
    expect(op(run, 'InterpretReplica').results).toMatchObject({ replica: 4 });
    expect(op(run, 'ReviseReplica').results?.revised).toMatchObject({ spec: { replicas: 2 } });
    expect(op(run, 'ReviseReplica').diff).toContainEqual({ op: 'replace', path: '/spec/replicas', value: 2 });
    expect(op(run, 'AggregateStatus').results?.aggregatedStatus).toMatchObject({ status: { replicas: 4, readyReplicas: 4 } });
    expect(op(run, 'InterpretComponent')).toMatchObject({ ok: false, code: 501 });
    for (const answer of run.operations) expect(typeof answer.ms).toBe('number');
  });

  it('turns a CloneSet unhealthy when its member status loses its available pods', async () => {
    const lost = { ...member, status: { ...member.status, readyReplicas: 1, availableReplicas: 1 } };
    const run = await engine.run({ template: stringify(cloneSet), member: stringify(lost) });
    expect(op(run, 'InterpretHealth').results).toEqual({ healthy: false });
  });

  it('reports an unreadable input at its line and runs what does not need it', async () => {
    const run = await engine.run({ template: stringify(cloneSet), member: 'apiVersion: v1\nkind: [\n' });
    expect(run.inputErrors.member?.message).toMatch(/member-cluster object/);
    expect(op(run, 'InterpretHealth')).toMatchObject({ ok: false, message: 'needs the member-cluster object' });
    expect(op(run, 'InterpretReplica').ok).toBe(true);
  });

  it('layers a pasted customization over the built-in module for the operations it defines', async () => {
    const customization = RIC('function InterpretHealth(observedObj)\n  return false\nend');
    const run = await engine.run({ customization, template: stringify(cloneSet), member: stringify(member) });
    expect(run.customization?.errors).toEqual([]);
    expect(op(run, 'InterpretHealth')).toMatchObject({ ok: true, layer: 'user-lua', results: { healthy: false } });
    expect(op(run, 'InterpretHealth').answeredBy).toBe('your customization cloneset-health (the editor)');
    expect(op(run, 'InterpretReplica').layer).toBe('builtin-ts');
  });

  it("marks a Lua syntax error at the customization file's own line", async () => {
    // The script starts on line 12 of the file; its line 3 (`local x = = 1`) is file line 14.
    const customization = RIC('function InterpretHealth(observedObj)\n  local ready = observedObj.status\n  local x = = 1\n  return true\nend');
    expect(customization.split('\n')[13]).toContain('local x = = 1');
    const run = await engine.run({ customization, template: stringify(cloneSet), member: stringify(member) });
    expect(run.customization?.errors[0]).toMatchObject({ line: 14 });
    expect(run.customization?.errors[0]?.message).toContain('script line 3 (line 14 of the file)');
    expect(run.customization?.errors[0]?.message).not.toContain(tmpdir());
    expect(op(run, 'InterpretHealth')).toMatchObject({ ok: false, line: 14 });
  });

  it('marks a runtime error of a script at its file line', async () => {
    const customization = RIC('function InterpretHealth(observedObj)\n  return observedObj.status.missing.field\nend');
    const run = await engine.run({ customization, template: stringify(cloneSet), member: stringify(member) });
    expect(op(run, 'InterpretHealth')).toMatchObject({ ok: false, code: 500, line: 13 });
  });

  it('stops a runaway script with the server limits and says so on its card', async () => {
    const limited = new PlaygroundEngine({ loaded, luaTimeoutMs: 200 });
    const customization = RIC('function InterpretHealth(observedObj)\n  while true do end\nend');
    const run = await limited.run({ customization, template: stringify(cloneSet), member: stringify(member) });
    expect(op(run, 'InterpretHealth')).toMatchObject({ ok: false });
    expect(op(run, 'InterpretHealth').message).toMatch(/time|deadline/i);
    // The pool still answers afterwards.
    expect(op(await engine.run({ template: stringify(cloneSet), member: stringify(member) }), 'InterpretHealth').ok).toBe(true);
  });

  it('exports what is on screen as a testdata file that `karmada-interpreter test` passes', async () => {
    // Unhealthy by our script, healthy by the built-in module: the export must carry our answer.
    const customization = RIC('function InterpretHealth(observedObj)\n  return observedObj.status.availableReplicas >= 100\nend');
    const exported = await engine.exportCase({
      customization,
      template: stringify(cloneSet),
      member: stringify(member),
      statusItems: [item('m1')],
      replicas: 3,
    });
    expect(exported.operations).toBeGreaterThanOrEqual(6);
    expect(exported.curl.InterpretHealth).toContain('"operation":"InterpretHealth"');
    const dir = join(scratch, 'export');
    await mkdir(join(dir, 'testdata'), { recursive: true });
    await writeFile(join(dir, 'customizations.yaml'), customization);
    await writeFile(join(dir, 'testdata', 'cloneset-test.yaml'), exported.testdata);
    const result = await cli(['test', dir]);
    expect(result.stdout).toMatch(new RegExp(`^${exported.operations} passed, 0 failed$`, 'm'));
    expect(result.code).toBe(0);
    expect(exported.testdata).toMatch(/operation: InterpretHealth\noutput:\n {2}healthy: false/);
    // Without the customization beside it the health case fails (the built-in module says healthy).
    const other = join(scratch, 'export-without');
    await mkdir(join(other, 'testdata'), { recursive: true });
    await writeFile(join(other, 'testdata', 'cloneset-test.yaml'), exported.testdata);
    const without = await cli(['test', other]);
    expect(without.stdout).toMatch(/^FAIL .*CloneSet InterpretHealth/m);
    expect(without.code).toBe(1);
  });

  it("shows Karmada's built-in answer beside ours and marks differences", async () => {
    const dir = join(scratch, 'karmada');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'customizations.yaml'), RIC('function InterpretHealth(observedObj)\n  return false\nend'));
    const karmada = await loadCustomizations([dir], { runtime: loaded.untrusted });
    const side = new PlaygroundEngine({ loaded, karmada });
    const run = await side.run({ template: stringify(cloneSet), member: stringify(member) });
    expect(op(run, 'InterpretHealth').karmada).toMatchObject({ ok: true, same: false, results: { healthy: false } });
    expect(op(run, 'InterpretReplica').karmada).toMatchObject({ ok: false, noScript: true, same: false });
  });

  it('evaluates state preservation rules against the reflected status', async () => {
    const rules = stringify([{ aliasLabelName: 'example.io/ready', jsonPath: '{ .readyReplicas }' }]);
    const result = await engine.preserve('', rules, stringify(member));
    expect(result).toMatchObject({ labels: { 'example.io/ready': '4' } });
    expect(await engine.preserve('', 'not: [valid', stringify(member))).toHaveProperty('error');
  });
});

describe('playground imports', () => {
  it('reads a request envelope', async () => {
    const text = await readFile('examples/requests/cloneset-revisereplica.json', 'utf8');
    const read = await importText(text);
    expect(read).toMatchObject({ cases: [{ operation: 'ReviseReplica' }] });
    if (!('cases' in read)) throw new Error('no cases');
    expect(read.cases[0]!.template).toContain('kind: CloneSet');
    expect(typeof read.cases[0]!.replicas).toBe('number');
  });

  it('reads a recorded exchange', async () => {
    const envelope = JSON.parse(await readFile('examples/requests/cloneset-interpretreplica.json', 'utf8'));
    const read = await importText(JSON.stringify({ request: envelope, response: null }));
    expect(read).toMatchObject({ cases: [{ name: 'recorded exchange InterpretReplica', operation: 'InterpretReplica' }] });
  });

  it('reads every case of a testdata file, the member object standing in for a missing template', async () => {
    const text = await readFile('interpreters/apps.kruise.io/v1alpha1/CloneSet/testdata/interprethealth-test.yaml', 'utf8');
    const read = await importText(text);
    if (!('cases' in read)) throw new Error(read.error);
    expect(read.cases.length).toBeGreaterThan(3);
    expect(read.cases[0]).toMatchObject({ operation: 'InterpretHealth' });
    expect(read.cases[0]!.member).toContain('availableReplicas');
    expect(read.cases[0]!.template).not.toContain('availableReplicas');
  });

  it('says what it expected from a file it cannot read', async () => {
    expect(await importText('just: a map\n')).toHaveProperty('error');
  });

  it('offers samples per kind and default inputs made from them', async () => {
    const library = await SampleLibrary.find([{ dir: 'interpreters', label: 'interpreters' }], ['examples/requests/cloneset-revisereplica.json']);
    const mine = library.list().filter((s) => s.kind === 'CloneSet' && s.apiVersion === 'apps.kruise.io/v1alpha1');
    expect(mine.length).toBeGreaterThan(3);
    const defaults = await library.defaults('apps.kruise.io/v1alpha1', 'CloneSet');
    expect(defaults.template).toContain('kind: CloneSet');
    expect(defaults.member).toContain('status');
    expect(defaults.statusItems?.length).toBeGreaterThan(0);
    expect(await library.read('../../etc/passwd')).toHaveProperty('error');
  });
});
