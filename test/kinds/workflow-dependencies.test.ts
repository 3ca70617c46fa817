// Workflow InterpretDependency edge cases: de-duplication, order, exclusions, and what is not parsed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getDependencies } from '../../interpreters/argoproj.io/v1alpha1/Workflow/dependencies.ts';
import type { DependentObjectReference } from '../../src/interpreter/types.ts';

function workflow(spec: Record<string, unknown>, namespace = 'ci'): Record<string, any> {
  return { apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', metadata: { name: 'w', namespace }, spec };
}
/** The dependencies besides an artifact repository ConfigMap (tests that look at other references). */
const besidesDefaultRepository = (refs: DependentObjectReference[]) =>
  refs.filter((ref) => !(ref.kind === 'ConfigMap' && ref.name === 'artifact-repositories'));
const key = (ref: DependentObjectReference) => [ref.apiVersion, ref.kind, ref.namespace ?? '', ref.name ?? ''];
const names = (refs: DependentObjectReference[], kind: string) => refs.filter((ref) => ref.kind === kind).map((ref) => ref.name);

describe('Workflow getDependencies', () => {
  it('lists each object once, sorted by apiVersion, kind, namespace, name', () => {
    const secretNames = fc.constantFrom('a', 'b', 'c', 'd');
    fc.assert(
      fc.property(fc.array(secretNames, { maxLength: 8 }), fc.array(secretNames, { maxLength: 8 }), (envSecrets, artifactSecrets) => {
        const refs = getDependencies(
          workflow({
            templates: [
              {
                name: 't',
                container: { image: 'x', env: envSecrets.map((name, i) => ({ name: `E${i}`, valueFrom: { secretKeyRef: { name, key: 'k' } } })) },
                outputs: { artifacts: artifactSecrets.map((name, i) => ({ name: `o${i}`, s3: { key: 'k', accessKeySecret: { name, key: 'ak' } } })) },
              },
            ],
          }),
        );
        const keys = refs.map((ref) => JSON.stringify(key(ref)));
        expect(new Set(keys).size).toBe(keys.length);
        const sorted = [...refs].sort((a, b) => (JSON.stringify(key(a)) < JSON.stringify(key(b)) ? -1 : 1));
        expect(refs).toEqual(sorted);
        expect(names(refs, 'Secret')).toEqual([...new Set([...envSecrets, ...artifactSecrets])].sort());
      }),
    );
  });

  it('excludes only PVCs named like a volumeClaimTemplate, not other kinds with that name', () => {
    const refs = besidesDefaultRepository(
      getDependencies(
        workflow({
          volumeClaimTemplates: [{ metadata: { name: 'work' } }],
          volumes: [
            { name: 'work', persistentVolumeClaim: { claimName: 'work' } },
            { name: 'cfg', configMap: { name: 'work' } },
          ],
        }),
      ),
    );
    expect(refs).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ci', name: 'work' }]);
  });

  it('follows the deprecated single semaphore and ignores mutexes', () => {
    const refs = besidesDefaultRepository(
      getDependencies(
        workflow({
          synchronization: { semaphore: { configMapKeyRef: { name: 'legacy-limits', key: 'k' } }, mutexes: [{ name: 'lock' }] },
          templates: [{ name: 't', synchronization: { mutex: { name: 'other' } }, container: { image: 'x' } }],
        }),
      ),
    );
    expect(refs).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ci', name: 'legacy-limits' }]);
  });

  it('keeps a parameter ConfigMap in the workflow namespace even when the parameter object has a namespace-like field', () => {
    const refs = besidesDefaultRepository(
      getDependencies(
        workflow({
          arguments: { parameters: [{ name: 'namespace', value: 'other', valueFrom: { configMapKeyRef: { name: 'params', key: 'k' } } }] },
        }),
      ),
    );
    expect(refs).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ci', name: 'params' }]);
  });

  it('does not parse strings: podSpecPatch and resource manifests are opaque', () => {
    const refs = besidesDefaultRepository(
      getDependencies(
        workflow({
          podSpecPatch: '{"containers":[{"name":"main","env":[{"name":"T","valueFrom":{"secretKeyRef":{"name":"hidden","key":"k"}}}]}]}',
          templates: [{ name: 'apply', resource: { action: 'create', manifest: 'apiVersion: v1\nkind: Pod\nspec:\n  serviceAccountName: hidden-sa\n' } }],
        }),
      ),
    );
    expect(refs).toEqual([]);
  });

  it('ignores references without a name and the default service account', () => {
    const refs = besidesDefaultRepository(
      getDependencies(
        workflow({
          serviceAccountName: 'default',
          workflowTemplateRef: { clusterScope: true },
          templates: [
            {
              name: 't',
              serviceAccountName: '',
              steps: [[{ name: 's', templateRef: { name: '', template: 'x' } }]],
              inputs: { artifacts: [{ name: 'a', git: { repo: 'r', usernameSecret: { key: 'u' } } }] },
            },
          ],
        }),
      ),
    );
    expect(refs).toEqual([]);
  });

  it('treats clusterScope false as a namespaced WorkflowTemplate and true as cluster-scoped', () => {
    const refs = besidesDefaultRepository(
      getDependencies(
        workflow(
          {
            templates: [
              {
                name: 'main',
                dag: {
                  tasks: [
                    { name: 'a', templateRef: { name: 'shared', template: 'x', clusterScope: false } },
                    { name: 'b', templateRef: { name: 'shared', template: 'y', clusterScope: true } },
                  ],
                },
              },
            ],
          },
          'team-a',
        ),
      ),
    );
    expect(refs).toEqual([
      { apiVersion: 'argoproj.io/v1alpha1', kind: 'ClusterWorkflowTemplate', name: 'shared' },
      { apiVersion: 'argoproj.io/v1alpha1', kind: 'WorkflowTemplate', namespace: 'team-a', name: 'shared' },
    ]);
  });

  it('walks templateDefaults like a template: its volumes, container env and service account', () => {
    const refs = besidesDefaultRepository(
      getDependencies(
        workflow({
          templateDefaults: {
            serviceAccountName: 'defaults-sa',
            volumes: [{ name: 'certs', secret: { secretName: 'ca-bundle' } }],
            container: { env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'modes', key: 'm' } } }] },
          },
          templates: [{ name: 'c', container: { image: 'x' } }],
        }),
      ),
    );
    expect(refs).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ci', name: 'modes' },
      { apiVersion: 'v1', kind: 'Secret', namespace: 'ci', name: 'ca-bundle' },
      { apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'ci', name: 'defaults-sa' },
    ]);
  });

  it('does not look at status (stored templates may name objects of another cluster)', () => {
    const object = workflow({ entrypoint: 'main' });
    object.status = {
      storedTemplates: { x: { serviceAccountName: 'from-status', container: { env: [{ valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] } } },
    };
    expect(getDependencies(object)).toEqual([]);
  });
});

// Argo's own reading of each reference: argo-workflows workflow/artifactrepositories/artifactrepositories.go
// (Resolve), workflow/sync/lock_name.go (getSemaphoreLockName), workflow/common/util.go
// (substituteAndGetConfigMapValue), workflow/artifacts/hdfs/hdfs.go (krbConfigConfigMap), and the
// dependencies distributor of karmada-io/karmada (pkg/dependenciesdistributor: the attached binding lives
// in the workload's namespace, owned by the dependency, so only same-namespace dependencies work).
describe('Workflow getDependencies: what Argo reads, where Karmada can propagate it', () => {
  it('names the artifact repository ConfigMap of artifactRepositoryRef: its configMap, else "artifact-repositories"', () => {
    const repository = (spec: Record<string, unknown>) =>
      getDependencies(workflow(spec))
        .filter((ref) => ref.kind === 'ConfigMap')
        .map((ref) => ref.name);
    expect(repository({})).toEqual([]);
    expect(repository({ artifactRepositoryRef: { key: 'team' } })).toEqual(['artifact-repositories']);
    expect(repository({ artifactRepositoryRef: { configMap: 'team-repos', key: 'team' } })).toEqual(['team-repos']);
  });

  it("keeps a semaphore ConfigMap of the workflow's namespace and leaves out one in another namespace", () => {
    const refs = besidesDefaultRepository(
      getDependencies(
        workflow({
          synchronization: {
            semaphores: [
              { configMapKeyRef: { name: 'implicit', key: 'k' } },
              { namespace: 'ci', configMapKeyRef: { name: 'explicit', key: 'k' } },
              { namespace: 'platform', configMapKeyRef: { name: 'elsewhere', key: 'k' } },
              { database: { key: 'db-semaphore' } },
            ],
          },
        }),
      ),
    );
    expect(refs.map((ref) => `${ref.namespace}/${ref.name}`)).toEqual(['ci/explicit', 'ci/implicit']);
  });

  it('follows HDFS krbConfigConfigMap and every other selector of the artifact types, not keys that merely end in "Secret"', () => {
    const refs = besidesDefaultRepository(
      getDependencies(
        workflow({
          templates: [
            {
              name: 'hdfs',
              container: { image: 'x' },
              outputs: {
                artifacts: [
                  { name: 'o', hdfs: { path: '/o', krbConfigConfigMap: { name: 'krb5', key: 'krb5.conf' }, krbCCacheSecret: { name: 'ccache', key: 'c' } } },
                ],
              },
            },
            { name: 'ext', plugin: { vault: { roleSecret: { name: 'plugin-config', key: 'r' } } } },
            { name: 'run', container: { image: 'x', args: ['--token-secret'] }, metadata: { labels: { fooSecret: 'bar' } } },
          ],
        }),
      ),
    );
    // The plugin template runs in the agent pod, which mounts the token of `default` (see the token tests below).
    expect(refs.map((ref) => `${ref.kind}/${ref.name}`)).toEqual(['ConfigMap/krb5', 'Secret/ccache', 'Secret/default.service-account-token']);
  });

  it('skips names that are Argo expressions, substituted only when the workflow runs', () => {
    const refs = besidesDefaultRepository(
      getDependencies(
        workflow({
          arguments: { parameters: [{ name: 'p', valueFrom: { configMapKeyRef: { name: '{{workflow.labels.team}}-config', key: 'k' } } }] },
          templates: [
            {
              name: 't',
              inputs: { artifacts: [{ name: 'a', s3: { key: 'k', accessKeySecret: { name: '{{inputs.parameters.creds}}', key: 'ak' } } }] },
              container: { image: 'x' },
            },
          ],
        }),
      ),
    );
    expect(refs).toEqual([]);
  });

  it('reads input and argument parameters from ConfigMaps, not output parameters', () => {
    const refs = besidesDefaultRepository(
      getDependencies(
        workflow({
          templates: [
            {
              name: 't',
              inputs: { parameters: [{ name: 'in', valueFrom: { configMapKeyRef: { name: 'inputs-cm', key: 'k' } } }] },
              outputs: { parameters: [{ name: 'out', valueFrom: { path: '/tmp/x', configMapKeyRef: { name: 'outputs-cm', key: 'k' } } }] },
              steps: [
                [{ name: 's', template: 'u', arguments: { parameters: [{ name: 'a', valueFrom: { configMapKeyRef: { name: 'args-cm', key: 'k' } } }] } }],
              ],
            },
          ],
        }),
      ),
    );
    expect(refs.map((ref) => ref.name)).toEqual(['args-cm', 'inputs-cm']);
  });

  it('finds a reference at the bottom of thousands of nested inline templates without recursion', () => {
    let inner: Record<string, unknown> = {
      container: { image: 'x' },
      inputs: { artifacts: [{ name: 'a', git: { repo: 'r', sshPrivateKeySecret: { name: 'deep-key', key: 'k' } } }] },
    };
    for (let depth = 0; depth < 20_000; depth++) inner = { dag: { tasks: [{ name: `t${depth}`, inline: inner }] } };
    const refs = besidesDefaultRepository(getDependencies(workflow({ templates: [{ name: 'root', ...inner }] })));
    expect(refs).toEqual([{ apiVersion: 'v1', kind: 'Secret', namespace: 'ci', name: 'deep-key' }]);
  });
});

// argo-workflows (f016ad89): workflow/controller/workflowpod.go `setupServiceAccount` and
// `executorServiceAccountName`; agent.go `createAgentPod` and `getExecutorPluginComponents`;
// serviceaccount.go `getServiceAccountTokenVolume`; operator.go `getServiceAccountTokenName`;
// util/secrets/secret_name.go `TokenNameForServiceAccount`/`TokenName`.
describe('Workflow getDependencies: service-account token Secrets Argo mounts by name', () => {
  const tokens = (spec: Record<string, unknown>) => names(getDependencies(workflow(spec)), 'Secret');
  const container = (name: string, extra: Record<string, unknown> = {}) => ({ name, container: { image: 'busybox' }, ...extra });

  it("lists the executor account's token for workflow pods, as in the issue: executor wf-executor, one container template", () => {
    const refs = besidesDefaultRepository(getDependencies(workflow({ executor: { serviceAccountName: 'wf-executor' }, templates: [container('main')] })));
    expect(refs).toEqual([
      { apiVersion: 'v1', kind: 'Secret', namespace: 'ci', name: 'wf-executor.service-account-token' },
      { apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'ci', name: 'wf-executor' },
    ]);
  });

  it("takes a pod template's own executor first, then templateDefaults', then the workflow's", () => {
    expect(
      tokens({
        executor: { serviceAccountName: 'wf-exec' },
        templateDefaults: { executor: { serviceAccountName: 'defaults-exec' } },
        templates: [container('own', { executor: { serviceAccountName: 'own-exec' } }), container('inherits')],
      }),
    ).toEqual(['defaults-exec.service-account-token', 'own-exec.service-account-token', 'wf-exec.service-account-token']);
  });

  it('ignores an executor on a template that creates no pod (steps, dag, suspend)', () => {
    expect(
      tokens({ templates: [{ name: 's', steps: [[{ name: 'a', template: 'c' }]], executor: { serviceAccountName: 'steps-exec' } }, container('c')] }),
    ).toEqual([]);
  });

  it('mounts no token Secret without an executor account: the pod uses its own projected token', () => {
    expect(tokens({ serviceAccountName: 'runner', templates: [container('main', { serviceAccountName: 'step' })] })).toEqual([]);
  });

  it("keeps the workflow's executor token when the templates live in a WorkflowTemplate", () => {
    expect(tokens({ workflowTemplateRef: { name: 'shared' }, executor: { serviceAccountName: 'wf-exec' } })).toEqual(['wf-exec.service-account-token']);
  });

  it("lists the agent pod's token for http and plugin templates: the workflow's serviceAccountName, else default", () => {
    const http = { name: 'call', http: { url: 'https://example.com' } };
    expect(tokens({ templates: [http] })).toEqual(['default.service-account-token']);
    expect(tokens({ serviceAccountName: 'runner', templates: [http] })).toEqual(['runner.service-account-token']);
    expect(tokens({ templates: [{ name: 'p', plugin: { hello: {} } }], serviceAccountName: 'runner' })).toEqual(['runner.service-account-token']);
    // The agent pod does not use template-level accounts (createAgentPod reads execWf.Spec.ServiceAccountName).
    expect(tokens({ templates: [{ ...http, serviceAccountName: 'step' }] })).toEqual(['default.service-account-token']);
    // Without an http or plugin template no agent pod is created.
    expect(tokens({ serviceAccountName: 'runner', templates: [container('main')] })).toEqual([]);
  });

  it('finds http templates inline in steps and DAG tasks', () => {
    expect(tokens({ templates: [{ name: 'd', dag: { tasks: [{ name: 't', inline: { http: { url: 'https://example.com' } } }] } }] })).toEqual([
      'default.service-account-token',
    ]);
  });

  it('lists the ServiceAccount and token of workflow-level executor plugins that automount it', () => {
    const plugin = (name: string, automount: boolean) => ({
      metadata: { name },
      spec: { sidecar: { automountServiceAccountToken: automount, container: { name, image: 'p' } } },
    });
    const refs = getDependencies(workflow({ executorPlugins: [plugin('vault', true), plugin('quiet', false)] }));
    expect(names(refs, 'ServiceAccount')).toEqual(['vault-executor-plugin']);
    expect(names(refs, 'Secret')).toEqual(['vault-executor-plugin.service-account-token']);
  });

  it('skips accounts that are Argo expressions, and lists each token once', () => {
    expect(
      tokens({
        serviceAccountName: '{{workflow.parameters.sa}}',
        executor: { serviceAccountName: '{{workflow.parameters.exec}}' },
        templates: [
          container('a', { executor: { serviceAccountName: 'x' } }),
          container('b', { executor: { serviceAccountName: 'x' } }),
          { name: 'h', http: { url: 'u' } },
        ],
      }),
    ).toEqual(['x.service-account-token']);
  });
});
