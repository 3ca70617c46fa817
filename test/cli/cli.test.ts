// The commands beside serve, run as a user runs them.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { generateSelfSigned } from '../../src/server/certificates.ts';
import { cli } from './run-cli.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs();
afterAll(temp.remove);

const CLONESET = 'examples/requests/cloneset-revisereplica.json';

async function objectFile(): Promise<string> {
  const dir = temp.make('kiw-cli-');
  const { request } = JSON.parse(await readFile(CLONESET, 'utf8'));
  const file = join(dir, 'cloneset.json');
  await writeFile(file, JSON.stringify(request.object));
  return file;
}

describe('karmada-interpreter', () => {
  it('--help lists every command', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    for (const command of ['serve', 'interpret', 'test', 'check', 'conformance', 'webhook-config', 'preserve']) expect(stdout).toContain(command);
  });

  it('an unknown command exits 2 with the usage', async () => {
    const { code, stderr } = await cli(['frobnicate']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown command "frobnicate"/);
  });

  it('serve --help documents every flag with its environment variable', async () => {
    const { code, stdout } = await cli(['serve', '--help']);
    expect(code).toBe(0);
    for (const flag of ['--port', '--host', '--cert-dir', '--tls-cert-file', '--tls-key-file', '--tls-san', '--customizations', '--log-level', '--body-limit'])
      expect(stdout).toContain(flag);
    expect(stdout).toContain('KARMADA_INTERPRETER_PORT');
  });

  it('serve rejects contradictory TLS flags before starting', async () => {
    const { code, stderr } = await cli(['serve', '--cert-dir', '/tmp', '--tls-cert-file', 'a']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/alternatives/);
  });
});

describe('interpret', () => {
  it('ReviseReplica prints the revised object as a named YAML document', async () => {
    const file = await objectFile();
    const { code, stdout } = await cli(['interpret', '--operation', 'revisereplica', '--desired-file', file, '--desired-replica', '2']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^# answered by the TypeScript module typescript:CloneSet\n---\n# \[1\/1\] revised:\n/);
    expect(parse(stdout.replace(/^#.*\n---\n/, '')).spec.replicas).toBe(2);
  });

  it('InterpretReplica prints replica (and requires when there are requirements)', async () => {
    const file = await objectFile();
    const { code, stdout } = await cli(['interpret', '--operation', 'InterpretReplica', '--desired-file', file]);
    expect(code).toBe(0);
    const docs = parseAllDocuments(stdout).map((d) => d.toJS());
    expect(docs[0]).toBe(4);
    expect(stdout).toContain('# [1/');
  });

  it('Retain without an observed file is a usage error (exit 2)', async () => {
    const file = await objectFile();
    const { code, stderr } = await cli(['interpret', '--operation', 'Retain', '--desired-file', file]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/Retain needs both/);
  });

  it('an unserved kind exits 1 with the interpreter message', async () => {
    const dir = temp.make('kiw-cli-');
    const file = join(dir, 'deploy.yaml');
    await writeFile(file, 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n');
    const { code, stderr } = await cli(['interpret', '--operation', 'InterpretHealth', '--observed-file', file]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/code 404.*not served/);
  });
});

describe('test', () => {
  it('passes on the built-in testdata and fails with file and case name on a wrong expectation', async () => {
    const ok = await cli(['test']);
    expect(ok.stdout).toMatch(/^\d+ passed, 0 failed$/m);
    expect(ok.code).toBe(0);

    const dir = temp.make('kiw-cli-');
    await writeFile(
      join(dir, 'bad-test.yaml'),
      `name: wrong replicas
operation: InterpretReplica
desiredObj:
  apiVersion: apps.kruise.io/v1alpha1
  kind: CloneSet
  metadata: {name: web, namespace: default}
  spec: {replicas: 3, template: {spec: {containers: [{name: c, image: i}]}}}
output:
  replica: 4
`,
    );
    const bad = await cli(['test', join(dir, 'bad-test.yaml')]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/FAIL .*bad-test\.yaml: wrong replicas/);
    expect(bad.stdout).toMatch(/^0 passed, 1 failed$/m);
  });

  it('refuses a case that compares nothing: a misspelled field or operation, an empty output (issue 32)', async () => {
    const dir = temp.make('kiw-cli-');
    const cloneSetCase = (name: string, operation: string, expectation: string) => `name: ${name}
operation: ${operation}
desiredObj:
  apiVersion: apps.kruise.io/v1alpha1
  kind: CloneSet
  metadata: {name: web, namespace: default}
  spec: {replicas: 3, template: {spec: {containers: [{name: c, image: i}]}}}
${expectation}
`;
    const file = join(dir, 'nothing-test.yaml');
    await writeFile(
      file,
      [
        cloneSetCase('misspelled output', 'InterpretReplica', 'ouput:\n  replica: 4'),
        cloneSetCase('empty output', 'InterpretReplica', 'output: {}'),
        cloneSetCase('no output', 'InterpretReplica', ''),
        cloneSetCase('misspelled operation', 'InterpretReplca', 'output:\n  replica: 3'),
        cloneSetCase('right', 'InterpretReplica', 'output:\n  replica: 3'),
      ].join('---\n'),
    );
    const run = await cli(['test', file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^1 passed, 4 failed$/m);
    expect(run.stdout).toMatch(/FAIL .*nothing-test\.yaml: misspelled output\n {2}document 1: unknown field "ouput" \(did you mean output\?\)/);
    expect(run.stdout).toMatch(/FAIL .*nothing-test\.yaml: empty output\n {2}.*would compare nothing/);
    expect(run.stdout).toMatch(/FAIL .*nothing-test\.yaml: no output\n {2}.*would compare nothing/);
    expect(run.stdout).toMatch(/FAIL .*nothing-test\.yaml: misspelled operation\n {2}unknown operation "InterpretReplca" \(did you mean InterpretReplica\?\)/);

    const misspelled = await cli(['interpret', file, '--case', 'misspelled output']);
    expect(misspelled.code).toBe(1);
    expect(misspelled.stderr).toContain('unknown field "ouput" (did you mean output?)');
    expect(misspelled.stderr).not.toContain('matches');
    const empty = await cli(['interpret', file, '--case', 'empty output']);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('would compare nothing');
    expect(empty.stderr).not.toContain('matches');
    const right = await cli(['interpret', file, '--case', 'right']);
    expect(right.code).toBe(0);
    expect(right.stderr).toContain('the result matches its output');
  });
});

describe('webhook-config', () => {
  it('lists every served kind with exactly its operations and passes Karmada validation rules', async () => {
    const dir = temp.make('kiw-cli-');
    const { caPem } = await generateSelfSigned();
    await writeFile(join(dir, 'ca.crt'), caPem);
    const { code, stdout } = await cli([
      'webhook-config',
      '--service',
      'karmada-system/karmada-interpreter-webhook',
      '--ca-file',
      join(dir, 'ca.crt'),
      '--timeout-seconds',
      '5',
    ]);
    expect(code).toBe(0);
    const config = parse(stdout);
    expect(config.apiVersion).toBe('config.karmada.io/v1alpha1');
    expect(config.kind).toBe('ResourceInterpreterWebhookConfiguration');
    const [hook] = config.webhooks;
    expect(hook.name.split('.').length).toBeGreaterThanOrEqual(2);
    expect(hook.interpreterContextVersions).toEqual(['v1alpha1']);
    expect(hook.timeoutSeconds).toBe(5);
    expect(hook.clientConfig.service).toEqual({ namespace: 'karmada-system', name: 'karmada-interpreter-webhook', path: '/interpret', port: 443 });
    expect(Buffer.from(hook.clientConfig.caBundle, 'base64').toString()).toBe(caPem);
    // Both CloneSet versions (v1beta1 is Kruise's storage version after v1.9.0, and Karmada sends a
    // group's preferred version), each with every operation.
    const clonesets = hook.rules.filter((r: any) => r.kinds[0] === 'CloneSet');
    expect(clonesets.map((r: any) => [r.apiGroups, r.apiVersions])).toEqual([
      [['apps.kruise.io'], ['v1alpha1']],
      [['apps.kruise.io'], ['v1beta1']],
    ]);
    for (const cloneset of clonesets)
      expect(cloneset.operations).toEqual([
        'InterpretReplica',
        'ReviseReplica',
        'Retain',
        'AggregateStatus',
        'InterpretStatus',
        'InterpretHealth',
        'InterpretDependency',
      ]);
    for (const rule of hook.rules) {
      expect(rule.operations.length).toBeGreaterThan(0);
      expect(rule.operations).not.toContain('Prune');
      expect(rule.operations).not.toContain('*');
      for (const list of [rule.apiVersions, rule.kinds]) expect(list.every((v: string) => v.length > 0)).toBe(true);
    }
  });

  it('--ca-file takes only certificates, as register does: a private key or a bad certificate is refused, never embedded', async () => {
    const dir = temp.make('kiw-cli-');
    const { caPem, keyPem } = await generateSelfSigned();
    await writeFile(join(dir, 'tls.key'), keyPem);
    await writeFile(join(dir, 'bad.crt'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    await writeFile(join(dir, 'with-key.pem'), caPem + keyPem);
    const args = ['webhook-config', '--service', 'karmada-system/karmada-interpreter-webhook', '--ca-file'];
    const key = await cli([...args, join(dir, 'tls.key')]);
    expect(key.code).toBe(1);
    expect(key.stdout).toBe('');
    expect(key.stderr).toMatch(/^webhook-config: \S*tls\.key holds no PEM certificate \(it holds a PEM PRIVATE KEY\)/);
    const bad = await cli([...args, join(dir, 'bad.crt')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/bad\.crt: unreadable certificate/);
    // A bundle with a key beside the certificate: only the certificate is published.
    const mixed = await cli([...args, join(dir, 'with-key.pem')]);
    expect(mixed.code).toBe(0);
    expect(Buffer.from(parse(mixed.stdout).webhooks[0].clientConfig.caBundle, 'base64').toString()).toBe(caPem);
  });

  it('--kinds CloneSet registers both CloneSet versions, and --exclude-kinds CloneSet neither', async () => {
    const rules = async (...args: string[]) => {
      const { code, stdout } = await cli(['webhook-config', '--url', 'https://x.example.com/interpret', '-o', 'json', ...args]);
      expect(code).toBe(0);
      return JSON.parse(stdout).webhooks[0].rules.map((r: any) => `${r.apiGroups[0]}/${r.apiVersions[0]} ${r.kinds[0]}`);
    };
    expect(await rules('--kinds', 'CloneSet.apps.kruise.io')).toEqual(['apps.kruise.io/v1alpha1 CloneSet', 'apps.kruise.io/v1beta1 CloneSet']);
    expect((await rules('--exclude-kinds', 'CloneSet')).filter((rule: string) => rule.endsWith(' CloneSet'))).toEqual([]);
  });

  it.each([
    [['--url', 'http://x.example.com/interpret'], /must use https/],
    [['--url', 'https://x.example.com/interpret?a=b'], /query/],
    [['--service', 'ns/svc/Interpret_Path'], /DNS-1123/],
    [['--service', 'ns/svc', '--timeout-seconds', '31'], /1-30/],
    [[], /exactly one of --url or --service/],
  ])('rejects %j', async (args, message) => {
    const { code, stderr } = await cli(['webhook-config', ...(args as string[])]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message as RegExp);
  });
});

describe("Karmada's layout: customizations.yaml beside testdata/", () => {
  // <group>/<version>/<Kind>/customizations.yaml + testdata/, as in Karmada's thirdparty tree.
  async function karmadaTree(): Promise<string> {
    const root = temp.make('kiw-cli-');
    const kind = async (group: string, version: string, kindName: string, rules: string, cases: string) => {
      const dir = join(root, group, version, kindName);
      await mkdir(join(dir, 'testdata'), { recursive: true });
      await writeFile(
        join(dir, 'customizations.yaml'),
        `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: ${kindName.toLowerCase()}}
spec:
  target: {apiVersion: ${group}/${version}, kind: ${kindName}}
  customizations:
${rules}`,
      );
      await writeFile(join(dir, 'testdata', 'cases-test.yaml'), cases);
    };
    await kind(
      'example.io',
      'v1',
      'Widget',
      `    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          return observedObj.status.ready == true
        end
    statusAggregation:
      luaScript: |
        function AggregateStatus(desiredObj, statusItems)
          if statusItems == nil then return desiredObj end
          desiredObj.status = { clusters = #statusItems }
          return desiredObj
        end
`,
      `name: widget ready
operation: InterpretHealth
observedObj: {apiVersion: example.io/v1, kind: Widget, metadata: {name: w}, status: {ready: true}}
output: {healthy: true}
---
name: an empty list is a list, not nil
operation: AggregateStatus
desiredObj: {apiVersion: example.io/v1, kind: Widget, metadata: {name: w}}
statusItems: []
output:
  aggregatedStatus: {apiVersion: example.io/v1, kind: Widget, metadata: {name: w}, status: {clusters: 0}}
`,
    );
    const cloneSet = `{apiVersion: apps.kruise.io/v1alpha1, kind: CloneSet, metadata: {name: web, generation: 1},
  spec: {replicas: 2, template: {spec: {containers: [{name: c, image: i}]}}},
  status: {observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReadyReplicas: 2}}`;
    await kind(
      'apps.kruise.io',
      'v1alpha1',
      'CloneSet',
      `    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj) return false end
    componentResource:
      luaScript: |
        function GetComponents(desiredObj) return { { name = "main", replicas = desiredObj.spec.replicas } } end
`,
      `name: script says unhealthy
operation: InterpretHealth
observedObj: ${cloneSet}
output: {healthy: false}
---
name: one component
operation: InterpretComponent
desiredObj: ${cloneSet}
output:
  components: [{name: main, replicas: 2}]
`,
    );
    return root;
  }

  it('test runs the scripts beside the cases, before our own interpreters', async () => {
    const run = await cli(['test', await karmadaTree()]);
    expect(run.stderr).toMatch(/using the customizations beside the cases: .*CloneSet\/customizations\.yaml, .*Widget\/customizations\.yaml/);
    expect(run.stdout).toMatch(/^4 passed, 0 failed$/m);
    expect(run.code).toBe(0);
  });

  it('conformance lets them answer only what we do not implement', async () => {
    const run = await cli(['conformance', await karmadaTree()]);
    expect(run.stdout).toContain(
      'answered by the customizations.yaml beside their testdata:\n  apps.kruise.io/v1alpha1 CloneSet: InterpretComponent\n  example.io/v1 Widget: AggregateStatus, InterpretHealth\n',
    );
    // Our CloneSet module answers InterpretHealth (healthy), not the script beside the case.
    expect(run.stdout).toMatch(/FAIL .*CloneSet\/testdata\/cases-test\.yaml: script says unhealthy/);
    // Karmada's client omits an empty aggregatedStatus; conformance sends [] so the script sees the case's list.
    expect(run.stdout).not.toMatch(/FAIL .*an empty list is a list/);
    expect(run.stdout).toMatch(/^3 passed, 1 failed$/m);
    expect(run.code).toBe(1);
  });
});
