// Kubeconfig loading as kubectl does it (kubernetes/client-go tools/clientcmd/loader.go:
// NewDefaultClientConfigLoadingRules, ClientConfigLoadingRules.Load, ResolveLocalPaths).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { KubeconfigError, kubeconfigFiles, loadKubeconfig } from '../../src/register/kubeconfig.ts';

const root = mkdtempSync(join(tmpdir(), 'kiw-kubeconfig-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, config: unknown): string {
  const file = join(root, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, typeof config === 'string' ? config : stringify(config));
  return file;
}

const cluster = (name: string, server: string, extra: object = {}) => ({ name, cluster: { server, ...extra } });
const context = (name: string, clusterName: string, user?: string) => ({ name, context: { cluster: clusterName, ...(user ? { user } : {}) } });

// Two files, as `KUBECONFIG=first:second` would name them: they define some names twice.
const first = write('a/first.yaml', {
  apiVersion: 'v1',
  kind: 'Config',
  clusters: [cluster('karmada', 'https://karmada.first:5443', { 'certificate-authority': 'certs/ca.crt' }), cluster('host', 'https://host.first:6443')],
  users: [{ name: 'admin', user: { token: 'first-token' } }],
  contexts: [context('host', 'host', 'admin')],
  'current-context': 'host',
});
const second = write('b/second.yaml', {
  apiVersion: 'v1',
  kind: 'Config',
  clusters: [cluster('karmada', 'https://karmada.second:5443')],
  users: [
    { name: 'admin', user: { token: 'second-token' } },
    { name: 'karmada-admin', user: { 'client-certificate': 'pki/admin.crt', 'client-key': '/abs/admin.key', exec: undefined } },
    { name: 'exec-path', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './bin/get-token' } } },
    { name: 'exec-name', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'get-token' } } },
  ],
  contexts: [context('karmada-apiserver', 'karmada', 'karmada-admin'), context('host', 'karmada', 'admin')],
  'current-context': 'karmada-apiserver',
});
const missing = join(root, 'nowhere', 'config');

describe('loadKubeconfig', () => {
  it('merges KUBECONFIG files: first definition of a name wins, first current-context wins, missing files are skipped', () => {
    const env = { KUBECONFIG: [first, missing, '', second, first].join(delimiter) };
    expect(kubeconfigFiles({ env }).files).toEqual([first, missing, second]); // empty entries and duplicates dropped
    const loaded = loadKubeconfig({ env });
    expect(loaded.files).toEqual([first, second]);
    expect(loaded.context).toBe('host'); // the first file's current-context, although the second sets one too
    expect(loaded.server).toBe('https://host.first:6443');
    expect(loaded.kubeConfig.getCurrentUser()?.token).toBe('first-token'); // user "admin" of the first file

    const karmada = loadKubeconfig({ env, context: 'karmada-apiserver' });
    expect(karmada.server).toBe('https://karmada.first:5443'); // cluster "karmada" of the first file, not the second
    expect(karmada.kubeConfig.getCurrentCluster()?.caFile).toBe(join(root, 'a', 'certs', 'ca.crt')); // relative to the first file
    const user = karmada.kubeConfig.getCurrentUser()!;
    expect(user.certFile).toBe(join(root, 'b', 'pki', 'admin.crt')); // relative to the second file
    expect(user.keyFile).toBe('/abs/admin.key');
  });

  it('resolves an exec command only when it is a path, as kubectl does', () => {
    const env = { KUBECONFIG: second };
    const byUser = (user: string) => {
      const file = write(`exec-${user}.yaml`, {
        clusters: [cluster('c', 'https://c:1')],
        users: [
          { name: user, user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: user === 'exec-path' ? './bin/get-token' : 'get-token' } } },
        ],
        contexts: [context('x', 'c', user)],
        'current-context': 'x',
      });
      return loadKubeconfig({ env, kubeconfig: file }).kubeConfig.getCurrentUser()!.exec.command;
    };
    expect(byUser('exec-path')).toBe(join(root, 'bin', 'get-token'));
    expect(byUser('exec-name')).toBe('get-token');
  });

  it('reads a relative token-file next to its kubeconfig', () => {
    write('c/token', 'token-from-file');
    const file = write('c/config', {
      clusters: [cluster('c', 'https://c:1')],
      users: [{ name: 'u', user: { 'token-file': 'token' } }],
      contexts: [context('x', 'c', 'u')],
      'current-context': 'x',
    });
    expect(loadKubeconfig({ kubeconfig: file, env: {} }).kubeConfig.getCurrentUser()!.token).toBe('token-from-file');
  });

  it('--kubeconfig is used alone, even when KUBECONFIG is set', () => {
    const loaded = loadKubeconfig({ kubeconfig: second, env: { KUBECONFIG: first } });
    expect(loaded.files).toEqual([second]);
    expect(loaded.context).toBe('karmada-apiserver');
    expect(loaded.server).toBe('https://karmada.second:5443');
  });

  it('defaults to ~/.kube/config when KUBECONFIG is unset or empty', () => {
    const home = join(root, 'home');
    const config = write('home/.kube/config', {
      clusters: [cluster('c', 'https://home:1')],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [context('x', 'c', 'u')],
      'current-context': 'x',
    });
    for (const env of [{ HOME: home }, { HOME: home, KUBECONFIG: '' }]) {
      const loaded = loadKubeconfig({ env });
      expect(loaded.files).toEqual([config]);
      expect(loaded.server).toBe('https://home:1');
    }
  });

  it('an empty file is an empty configuration', () => {
    const empty = write('empty.yaml', '');
    expect(loadKubeconfig({ env: { KUBECONFIG: [empty, second].join(delimiter) } }).context).toBe('karmada-apiserver');
  });

  it.each([
    ['an explicit file that does not exist', { kubeconfig: missing, env: {} }, /kubeconfig .*nowhere\/config \(--kubeconfig\) does not exist/],
    ['KUBECONFIG naming only missing files', { env: { KUBECONFIG: missing } }, /no kubeconfig: .*nowhere\/config from KUBECONFIG not found$/],
    [
      'no ~/.kube/config',
      { env: { HOME: join(root, 'nohome') } },
      /no kubeconfig: .*nohome\/\.kube\/config from the default ~\/\.kube\/config not found \(give --kubeconfig FILE or set KUBECONFIG\)/,
    ],
    [
      'an unknown context',
      { env: { KUBECONFIG: [first, second].join(delimiter) }, context: 'nope' },
      /context "nope" not found in .*first\.yaml, .*second\.yaml \(merged\) \(contexts: host, karmada-apiserver\)/,
    ],
    [
      'no current-context',
      { kubeconfig: write('nocurrent.yaml', { contexts: [context('x', 'c')], clusters: [cluster('c', 'https://c:1')] }), env: {} },
      /sets no current-context: pass --context \(contexts: x\)/,
    ],
    [
      'a context whose cluster is missing',
      { kubeconfig: write('nocluster.yaml', { contexts: [context('x', 'gone')], 'current-context': 'x' }), env: {} },
      /cluster "gone" of context "x" not found/,
    ],
    [
      'a context whose user is missing',
      {
        kubeconfig: write('nouser.yaml', { clusters: [cluster('c', 'https://c:1')], contexts: [context('x', 'c', 'ghost')], 'current-context': 'x' }),
        env: {},
      },
      /user "ghost" of context "x" not found/,
    ],
    ['a file that is not YAML', { kubeconfig: write('broken.yaml', 'clusters: [\n'), env: {} }, /kubeconfig .*broken\.yaml: /],
    ['a file that is not a Config', { kubeconfig: write('list.yaml', '- a\n- b\n'), env: {} }, /not a Config object/],
  ])('explains %s', (_what, source, message) => {
    expect(() => loadKubeconfig(source)).toThrow(KubeconfigError);
    expect(() => loadKubeconfig(source)).toThrow(message);
  });
});
