// What a new user trips over in the first hour (issue 22), run as they run it: the CLI in a child process.
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cli } from './run-cli.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const temp = tempDirs();
afterAll(temp.remove);

const ROLLOUT_HEALTH = 'interpreters/argoproj.io/v1alpha1/Rollout/testdata/interprethealth-test.yaml';
const VERSION = (JSON.parse(await import('node:fs').then((fs) => fs.readFileSync('package.json', 'utf8'))) as { version: string }).version;

let dir: string;
beforeAll(async () => {
  dir = temp.make('kiw-first-hour-');
});

/** A folder with one customization file. */
async function customizations(name: string, text: string): Promise<string> {
  const folder = join(dir, name);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'customization.yaml'), text);
  return folder;
}

const DEPLOYMENT_HEALTH = (script: string) => `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: my-deployment}
spec:
  target: {apiVersion: apps/v1, kind: Deployment}
  customizations:
    healthInterpretation:
      luaScript: |
${script
  .split('\n')
  .map((line) => `        ${line}`)
  .join('\n')}
`;

describe('help and version', () => {
  it('--help lists every command, help COMMAND prints its help, --version and version print the versions', async () => {
    const usage = await cli(['--help']);
    expect(usage.code).toBe(0);
    for (const command of ['serve', 'interpret', 'test', 'check', 'conformance', 'webhook-config', 'register', 'replay', 'preserve', 'version']) {
      expect(usage.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
    const serveHelp = await cli(['help', 'serve']);
    expect(serveHelp.code).toBe(0);
    expect(serveHelp.stdout).toMatch(/^Usage: karmada-interpreter serve/);
    expect(serveHelp.stdout).toContain('--examples');
    expect((await cli(['help', 'nope'])).code).toBe(2);
    for (const args of [['--version'], ['version']]) {
      const { code, stdout } = await cli(args);
      expect(code).toBe(0);
      expect(stdout).toBe(`karmada-interpreter-webhook ${VERSION} (Node.js ${process.version})\n`);
    }
  });
});

describe('interpret', () => {
  it('takes a request envelope as Karmada sends it, and says which layer answered', async () => {
    const { code, stdout } = await cli(['interpret', 'examples/requests/cloneset-revisereplica.json']);
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toBe('# answered by the TypeScript module typescript:CloneSet');
    expect(parse(stdout.replace(/^#.*\n---\n/, '')).spec.replicas).toBe(1);
  });

  it('points at the FILE form when an envelope is given as --desired-file', async () => {
    const { code, stderr } = await cli(['interpret', '--operation', 'InterpretReplica', '--desired-file', 'examples/requests/cloneset-interpretreplica.json']);
    expect(code).toBe(2);
    expect(stderr).toContain(
      "is a ResourceInterpreterContext (a request as Karmada sends it): run 'interpret examples/requests/cloneset-interpretreplica.json'",
    );
  });

  it('runs one named case of a testdata file, compares it with its output, and lists the cases when none is named', async () => {
    const list = await cli(['interpret', ROLLOUT_HEALTH]);
    expect(list.code).toBe(2);
    expect(list.stderr).toMatch(/has \d+ cases: pick one with --case NAME:\n {2}Healthy Rollout\n/);

    const notEnabled = await cli(['interpret', ROLLOUT_HEALTH, '--case', 'Healthy Rollout']);
    expect(notEnabled.code).toBe(1);
    expect(notEnabled.stderr).toContain(
      '(code 404): argoproj.io/v1alpha1 Rollout is not served by this interpreter; a shipped example serves it when enabled (--examples Rollout.argoproj.io)',
    );

    const ran = await cli(['interpret', ROLLOUT_HEALTH, '--case', 'Healthy Rollout', '--examples', 'Rollout']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(
      /^# answered by the shipped example example-argo-rollout \(.*Rollout\/customizations\.yaml\)\n---\n# \[1\/1\] healthy:\ntrue\n$/,
    );
    expect(ran.stderr).toContain('case "Healthy Rollout": the result matches its output');
  });

  it('names your customization when it answers, and a customization that failed to load instead of "not served"', async () => {
    const object = join(dir, 'deployment.yaml');
    await writeFile(object, 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nstatus: {readyReplicas: 1}\n');
    const good = await customizations('good', DEPLOYMENT_HEALTH('function InterpretHealth(observedObj)\n  return observedObj.status.readyReplicas == 1\nend'));
    const ok = await cli(['interpret', '--operation', 'InterpretHealth', '--observed-file', object, '--customizations', good]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.split('\n')[0]).toBe(`# answered by your customization my-deployment (${join(good, 'customization.yaml')})`);

    const broken = await customizations(
      'broken',
      DEPLOYMENT_HEALTH('function InterpretHealth(observedObj)\n  return observedObj.status.readyReplicas ==\nend'),
    );
    const failed = await cli(['interpret', '--operation', 'InterpretHealth', '--observed-file', object, '--customizations', broken]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(
      `Execute InterpretHealth error (code 500): customization my-deployment failed to load: ${join(broken, 'customization.yaml')} document 1: healthInterpretation (InterpretHealth): script line 3 (line 11 of the file): unexpected symbol near 'end'`,
    );
  });

  it('a --customizations path that does not exist is a usage error naming the flag', async () => {
    const { code, stderr } = await cli(['interpret', 'examples/requests/cloneset-revisereplica.json', '--customizations', join(dir, 'nope')]);
    expect(code).toBe(2);
    expect(stderr).toContain(`interpret: --customizations ${join(dir, 'nope')}: no such file or directory`);
  });
});

describe('check', () => {
  it('fails on a misspelled field, naming it with a suggestion, and gives Lua errors with the line of the file', async () => {
    const folder = await customizations(
      'typos',
      `${DEPLOYMENT_HEALTH('function InterpretHealth(observedObj)\n  return observedObj.status.readyReplicas ==\nend')}---
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: my-statefulset}
spec:
  target: {apiVersion: apps/v1, kind: StatefulSet}
  customizations:
    healthInterpretations:
      luaScript: "function InterpretHealth(o) return true end"
`,
    );
    const { code, stdout } = await cli(['check', folder]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/InterpretHealth: +ERROR: script line 3 \(.*typos\/customization\.yaml line 11\): unexpected symbol near 'end'/);
    expect(stdout).toContain('unknown field "spec.customizations.healthInterpretations" (did you mean healthInterpretation?)');
  });
});

describe('test', () => {
  it('fails on a folder without cases, and says so', async () => {
    const empty = join(dir, 'no-cases');
    await mkdir(join(empty, 'testdata'), { recursive: true });
    const { code, stderr } = await cli(['test', empty]);
    expect(code).toBe(1);
    expect(stderr).toContain('no test cases');
  });

  it("runs a shipped example's own testdata with that example enabled", async () => {
    const { code, stdout, stderr } = await cli(['test', 'interpreters/keda.sh']);
    expect(code, stdout).toBe(0);
    expect(stderr).toContain('enabled the shipped examples these cases test: ScaledObject.keda.sh');
    expect(stdout).toMatch(/^[1-9]\d* passed, 0 failed$/m);
  });
});

describe('webhook-config', () => {
  const args = ['webhook-config', '--url', 'https://example.com/interpret'];
  const kinds = (stdout: string) =>
    (parse(stdout) as { webhooks: Array<{ rules: Array<{ kinds: string[]; apiGroups: string[] }> }> }).webhooks[0]!.rules.map(
      (r) => `${r.kinds[0]}.${r.apiGroups[0]}`,
    );

  it('registers the built-in kinds only; examples and --kinds/--exclude-kinds choose more or fewer', async () => {
    // CloneSet twice: apps.kruise.io/v1alpha1 and v1beta1, one rule each.
    expect(kinds((await cli(args)).stdout)).toEqual([
      'CloneSet.apps.kruise.io',
      'CloneSet.apps.kruise.io',
      'StatefulSet.apps.kruise.io',
      'Workflow.argoproj.io',
      'XlineCluster.xline.io.datenlord.com',
      'XlineCluster.xlineoperator.xline.cloud',
    ]);
    expect(kinds((await cli([...args, '--examples', 'all'])).stdout)).toEqual(expect.arrayContaining(['Rollout.argoproj.io', 'ScaledObject.keda.sh']));
    expect(kinds((await cli([...args, '--kinds', 'CloneSet,Workflow.argoproj.io'])).stdout)).toEqual([
      'CloneSet.apps.kruise.io',
      'CloneSet.apps.kruise.io',
      'Workflow.argoproj.io',
    ]);
    expect(kinds((await cli([...args, '--exclude-kinds', 'XlineCluster'])).stdout)).toEqual([
      'CloneSet.apps.kruise.io',
      'CloneSet.apps.kruise.io',
      'StatefulSet.apps.kruise.io',
      'Workflow.argoproj.io',
    ]);
    const typo = await cli([...args, '--kinds', 'Clonset']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('--kinds: "Clonset" matches no served kind (did you mean CloneSet?)');
  });

  it('refuses to print a configuration while a customization fails to load', async () => {
    const broken = await customizations('broken-config', DEPLOYMENT_HEALTH('function InterpretHealth(o) return o.x == end'));
    const { code, stderr } = await cli([...args, '--customizations', broken]);
    expect(code).toBe(1);
    expect(stderr).toContain('not all customizations loaded');
  });
});

describe('conformance', () => {
  it("says how to get Karmada's cases when no folder is given or it does not exist, and exits non-zero", async () => {
    for (const extra of [[], [join(dir, 'karmada')]]) {
      const { code, stderr } = await cli(['conformance', ...extra]);
      expect(code).toBe(2);
      expect(stderr).toContain('git clone --depth 1 https://github.com/karmada-io/karmada');
    }
  });
});

describe('serve: wrong inputs are usage errors at start', () => {
  it('a missing --customizations folder and a --cert-dir without tls.crt/tls.key (exit 2, naming the flag)', async () => {
    const missing = await cli(['serve', '--customizations', join(dir, 'not-mounted')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`serve: --customizations ${join(dir, 'not-mounted')}: no such file or directory`);
    const certDir = join(dir, 'certs');
    await mkdir(certDir, { recursive: true });
    await writeFile(join(certDir, 'tls.crt'), 'x');
    const certs = await cli(['serve', '--cert-dir', certDir]);
    expect(certs.code).toBe(2);
    expect(certs.stderr).toContain(`--cert-dir ${certDir} has no tls.key: it must hold tls.crt (the serving certificate, PEM`);
  });

  it('a port in use names --port and --host', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const { code, stderr } = await cli([
        'serve',
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
        '--self-signed-dir',
        join(dir, 'self-signed'),
        '--log-level',
        'silent',
      ]);
      expect(code).toBe(1);
      expect(stderr).toContain(`serve: cannot listen on --port ${port} / --host 127.0.0.1: the address is already in use`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
