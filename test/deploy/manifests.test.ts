// Every manifest parses and conforms to its schema (client-node's Kubernetes models for built-in
// kinds, hand-written ajv schemas for cert-manager, Karmada and kustomize files), the pieces agree
// with each other and with the server's flags, and the Karmada configuration is what the registry
// generates now.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import fastJsonPatch from 'fast-json-patch';
import { parseAllDocuments, parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { serveConfig } from '../../src/config.ts';
import { renderWebhookConfiguration, WEBHOOK_CONFIGURATION_FILE, WEBHOOK_URL } from '../../scripts/update-manifests.ts';
import { builtinModelFor, checkAgainstModel } from '../support/k8s-schema.ts';
import { checkAgainstSchema } from './manifest-schemas.ts';
import { HAVE_KUBECTL, kustomize } from './kubectl.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const MANIFESTS = join(ROOT, 'manifests');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

interface Doc {
  file: string;
  object: Record<string, any>;
}
const docs: Doc[] = yamlFiles(MANIFESTS).flatMap((file) =>
  parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${relative(ROOT, file)}: ${doc.errors[0]!.message}`);
    return { file: relative(MANIFESTS, file), object: doc.toJS() };
  }),
);
const ours = docs.filter((d) => !d.file.startsWith('examples/'));
const base = ours.filter((d) => !d.file.includes('/') && d.file !== 'kustomization.yaml');
const find = (kind: string, name?: string, among = base) => {
  const found = among.filter((d) => d.object.kind === kind && (name === undefined || d.object.metadata?.name === name));
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0]!.object;
};
const readYaml = (path: string) => parse(readFileSync(join(MANIFESTS, path), 'utf8'));
const baseKustomization = readYaml('kustomization.yaml');
const COMPONENTS = ['service-monitor', 'customizations', 'register'];
const componentDocs = (component: string) => ours.filter((d) => d.file.startsWith(`components/${component}/`) && d.object.kind !== 'Component');
const packageVersion: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

/** The base Deployment with a component's JSON patches applied, as kustomize applies them. */
function deploymentWith(...components: string[]) {
  let deployment = structuredClone(find('Deployment'));
  for (const component of components) {
    const kustomization = readYaml(`components/${component}/kustomization.yaml`);
    for (const patch of kustomization.patches ?? []) {
      expect(patch.target).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment', name: deployment.metadata.name });
      deployment = fastJsonPatch.applyPatch(deployment, parse(patch.patch), true, false).newDocument;
    }
  }
  expect(checkAgainstModel(deployment, 'V1Deployment')).toEqual([]);
  return deployment;
}
const containerOf = (deployment: any) => deployment.spec.template.spec.containers[0];

describe('manifests', () => {
  it('every document parses and conforms to its schema', () => {
    expect(docs.length).toBeGreaterThan(10);
    for (const { file, object } of ours) {
      const model = builtinModelFor(object);
      const problems = model ? checkAgainstModel(object, model) : checkAgainstSchema(object);
      expect(problems, `${file}: ${object.apiVersion}/${object.kind} has no schema in the tests`).toBeDefined();
      expect(problems, `${file} ${object.kind}/${object.metadata?.name}`).toEqual([]);
    }
    // Files under manifests/examples (the kinds' example policies and patches) only have to parse (above).
  });

  it('the schemas catch mistakes (so the check above can fail)', () => {
    const deployment = structuredClone(find('Deployment'));
    deployment.spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem = true;
    deployment.spec.replicas = '2';
    expect(checkAgainstModel(deployment, 'V1Deployment')).toHaveLength(2);
    const certificate = structuredClone(find('Certificate', 'karmada-interpreter-webhook'));
    certificate.spec.duration = '90d';
    certificate.spec.dnsNames.push('Bad_Name');
    expect(checkAgainstSchema(certificate)).toHaveLength(2);
    const riwc = parse(readFileSync(join(ROOT, WEBHOOK_CONFIGURATION_FILE), 'utf8'));
    riwc.webhooks[0].rules[0].operations.push('Prune');
    riwc.webhooks[0].timeoutSeconds = 60;
    expect(checkAgainstSchema(riwc)!.length).toBeGreaterThanOrEqual(2);
  });

  it('the base kustomization lists every host-cluster manifest and nothing missing', () => {
    const kustomization = baseKustomization;
    const rootFiles = readdirSync(MANIFESTS).filter((f) => /\.yaml$/.test(f) && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(rootFiles.sort());
    for (const { file, object } of ours.filter((d) => !d.file.includes('/') && d.file !== 'kustomization.yaml')) {
      if (object.kind !== 'Namespace') expect(object.metadata.namespace, file).toBe(kustomization.namespace);
    }
    expect(find('Namespace').metadata.name).toBe(kustomization.namespace);
    expect(kustomization.images.map((i: any) => i.name)).toContain(find('Deployment').spec.template.spec.containers[0].image);
  });

  it("every object carries Kubernetes' recommended labels; selectors use only name and instance; the version is package.json's", () => {
    const [common] = baseKustomization.labels;
    expect(common).toEqual({
      pairs: {
        'app.kubernetes.io/name': 'karmada-interpreter-webhook',
        'app.kubernetes.io/instance': 'karmada-interpreter-webhook',
        'app.kubernetes.io/version': packageVersion,
        'app.kubernetes.io/part-of': 'karmada',
        'app.kubernetes.io/managed-by': 'kustomize',
      },
      includeTemplates: true, // pods carry them too
    });
    expect(baseKustomization.labels).toHaveLength(1);
    const KEYS = ['name', 'instance', 'version', 'component', 'part-of', 'managed-by'].map((k) => `app.kubernetes.io/${k}`).sort();
    // Base objects: the kustomization adds the common labels, each file names its component.
    for (const { file, object } of base) {
      const labels = { ...object.metadata.labels, ...common.pairs };
      expect(
        Object.keys(labels)
          .filter((k) => k.startsWith('app.kubernetes.io/'))
          .sort(),
        `${file} ${object.kind}`,
      ).toEqual(KEYS);
    }
    // Objects of a component are not transformed by the base, so they carry all of them, and the namespace.
    for (const component of COMPONENTS) {
      for (const { file, object } of componentDocs(component)) {
        expect(object.metadata.labels, file).toMatchObject(common.pairs);
        expect(object.metadata.labels['app.kubernetes.io/component'], file).toMatch(/^[a-z-]+$/);
        expect(object.metadata.namespace, file).toBe(baseKustomization.namespace);
      }
    }
    const selector = { 'app.kubernetes.io/name': 'karmada-interpreter-webhook', 'app.kubernetes.io/instance': 'karmada-interpreter-webhook' };
    const deployment = find('Deployment');
    expect(deployment.spec.selector.matchLabels).toEqual(selector);
    expect(deployment.spec.template.metadata.labels).toMatchObject(selector);
    for (const [kind, get] of [
      ['Service', (o: any) => o.spec.selector],
      ['PodDisruptionBudget', (o: any) => o.spec.selector.matchLabels],
      ['NetworkPolicy', (o: any) => o.spec.podSelector.matchLabels],
    ] as const) {
      for (const { object } of ours.filter((d) => d.object.kind === kind && d.object.metadata.namespace))
        expect(get(object), `${kind} ${object.metadata.name}`).toEqual(selector);
    }
    // The image is the release of this version, by the name the Deployment gives it (image-override.test.ts).
    expect(baseKustomization.images).toEqual([{ name: find('Deployment').spec.template.spec.containers[0].image, newTag: packageVersion }]);
  });

  it('Deployment: 2 replicas spread over nodes, hardened, HTTPS probes, resources, graceful shutdown within the grace period', () => {
    const deployment = find('Deployment');
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    // What selects the pods (the pods carry more labels).
    const podLabels = deployment.spec.selector.matchLabels;
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.metadata.labels).toMatchObject(podLabels);
    const antiAffinity = pod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm;
    expect(antiAffinity.topologyKey).toBe('kubernetes.io/hostname');
    expect(antiAffinity.labelSelector.matchLabels).toEqual(podLabels);

    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.serviceAccountName).toBe(find('ServiceAccount').metadata.name);
    for (const kind of ['requests', 'limits']) expect(Object.keys(container.resources[kind]).sort()).toEqual(['cpu', 'memory']);

    // The args are valid for the real `serve` and agree with the ports, probes and volumes.
    expect(container.args[0]).toBe('serve');
    const config = serveConfig(container.args.slice(1), {});
    const https = container.ports.find((p: any) => p.name === 'https');
    expect(https.containerPort).toBe(config.port);
    expect(container.readinessProbe.httpGet).toEqual({ scheme: 'HTTPS', path: '/readyz', port: 'https' });
    expect(container.startupProbe.httpGet).toEqual({ scheme: 'HTTPS', path: '/readyz', port: 'https' });
    expect(container.livenessProbe.httpGet).toEqual({ scheme: 'HTTPS', path: '/healthz', port: 'https' });
    const mount = container.volumeMounts.find((m: any) => m.mountPath === config.certDir);
    expect(mount.readOnly).toBe(true);
    expect(mount.subPath).toBeUndefined(); // subPath mounts never see a renewed Secret
    const volume = pod.volumes.find((v: any) => v.name === mount.name);
    expect(volume.secret.secretName).toBe(find('Certificate', 'karmada-interpreter-webhook').spec.secretName);
    expect(config.shutdownDelayMs).toBeGreaterThan(0);
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(config.shutdownDelayMs + config.shutdownTimeoutMs);
    // With --cert-dir nothing is written at run time, so no writable /tmp is mounted.
    expect(container.volumeMounts.map((m: any) => m.mountPath)).not.toContain('/tmp');
  });

  it('Service 443 -> the https port; PDB keeps one; NetworkPolicy admits Karmada on 8443', () => {
    const deployment = find('Deployment');
    const podLabels = deployment.spec.selector.matchLabels;
    const service = find('Service');
    expect(service.spec.selector).toEqual(podLabels);
    expect(service.spec.ports).toEqual([{ name: 'https', port: 443, targetPort: 'https', protocol: 'TCP' }]);
    const pdb = find('PodDisruptionBudget');
    expect(pdb.spec.minAvailable).toBe(1);
    expect(pdb.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
    expect(pdb.spec.selector.matchLabels).toEqual(podLabels);
    const policy = find('NetworkPolicy', 'karmada-interpreter-webhook');
    expect(policy.spec.podSelector.matchLabels).toEqual(podLabels);
    expect(policy.spec.ingress[0].ports).toEqual([{ protocol: 'TCP', port: 8443 }]);
    expect(policy.spec.ingress[0].from[0].namespaceSelector.matchLabels).toEqual({ 'kubernetes.io/metadata.name': 'karmada-system' });
  });

  it('cert-manager: a private CA signs a serving certificate for <svc>.<ns>.svc and <svc>.<ns>.svc.cluster.local', () => {
    const service = find('Service');
    const serving = find('Certificate', 'karmada-interpreter-webhook');
    const { name, namespace } = service.metadata;
    expect(serving.spec.dnsNames).toEqual([`${name}.${namespace}.svc`, `${name}.${namespace}.svc.cluster.local`]);
    expect(serving.spec.usages).toContain('server auth');
    const caIssuer = find('Issuer', serving.spec.issuerRef.name);
    const ca = find('Certificate', 'karmada-interpreter-ca');
    expect(caIssuer.spec.ca.secretName).toBe(ca.spec.secretName);
    expect(ca.spec.isCA).toBe(true);
    expect(find('Issuer', ca.spec.issuerRef.name).spec).toEqual({ selfSigned: {} });
    // The URL Karmada is given names the Service by a SAN of the certificate.
    expect(serving.spec.dnsNames).toContain(new URL(WEBHOOK_URL).hostname);
    expect(Number(new URL(WEBHOOK_URL).port || 443)).toBe(service.spec.ports[0].port); // URL drops the default :443
  });

  it('the register component patches the Deployment into a valid `serve --register` and opens egress to karmada-apiserver', () => {
    const component = readYaml('components/register/kustomization.yaml');
    for (const resource of component.resources) expect(existsSync(join(MANIFESTS, 'components/register', resource))).toBe(true);
    const patched = deploymentWith('register');
    const container = containerOf(patched);
    const config = serveConfig(container.args.slice(1), {});
    expect(config.register).toMatchObject({ url: WEBHOOK_URL, timeoutSeconds: 10 });
    const kubeconfigMount = container.volumeMounts.find((m: any) => config.register!.kubeconfig.startsWith(m.mountPath + '/'));
    expect(kubeconfigMount.readOnly).toBe(true);
    expect(patched.spec.template.spec.volumes.find((v: any) => v.name === kubeconfigMount.name).secret.secretName).toBe(
      'karmada-interpreter-register-kubeconfig',
    );
    expect(config.register!.kubeconfig.slice(kubeconfigMount.mountPath.length + 1)).toBe('kubeconfig'); // the Secret's key
    const egress = find('NetworkPolicy', 'karmada-interpreter-webhook-to-karmada-apiserver', componentDocs('register'));
    expect(egress.spec.egress[0].to[0].namespaceSelector.matchLabels).toEqual({ 'kubernetes.io/metadata.name': 'karmada-system' });
    // Self-registration publishes the same object as the committed file (same name, webhook name, timeout).
    const committed = parse(readFileSync(join(ROOT, WEBHOOK_CONFIGURATION_FILE), 'utf8'));
    expect(config.register!.name).toBe(committed.metadata.name);
    expect(config.register!.webhookName).toBe(committed.webhooks[0].name);
    expect(config.register!.timeoutSeconds).toBe(committed.webhooks[0].timeoutSeconds);
    const rbac = ours.filter((d) => d.file === 'karmada/register-rbac.yaml').map((d) => d.object);
    const role = rbac.find((o) => o.kind === 'ClusterRole')!;
    // Server-side apply (get, create and patch of that one object) and the list behind the precedence warning.
    const rule = (resource: string) => role.rules.filter((r: any) => r.apiGroups.includes('config.karmada.io') && r.resources.includes(resource));
    expect(rule('resourceinterpreterwebhookconfigurations')).toEqual([
      {
        apiGroups: ['config.karmada.io'],
        resources: ['resourceinterpreterwebhookconfigurations'],
        resourceNames: [committed.metadata.name],
        verbs: ['get', 'create', 'patch'],
      },
    ]);
    expect(rule('resourceinterpretercustomizations')).toEqual([
      { apiGroups: ['config.karmada.io'], resources: ['resourceinterpretercustomizations'], verbs: ['list'] },
    ]);
    expect(role.rules).toHaveLength(2);
  });

  it('the service-monitor component turns on the plain-HTTP metrics listener and has Prometheus scrape it through its own Service', () => {
    const patched = deploymentWith('service-monitor');
    const container = containerOf(patched);
    const address = container.args.find((a: string) => a.startsWith('--metrics-bind-address='))?.split('=')[1];
    expect(address).toBe(':8080'); // all interfaces, as controller-runtime's flag of that name
    expect(() => serveConfig(container.args.slice(1), {})).not.toThrow();
    const port = container.ports.find((p: any) => p.name === 'metrics');
    expect(port).toEqual({ name: 'metrics', containerPort: Number(address!.split(':').at(-1)), protocol: 'TCP' });
    // The probes stay on the webhook's HTTPS port: they prove what Karmada uses works.
    expect(container.readinessProbe.httpGet.port).toBe('https');

    const docsOf = componentDocs('service-monitor');
    const service = find('Service', 'karmada-interpreter-webhook-metrics', docsOf);
    expect(service.spec.ports).toEqual([{ name: 'metrics', port: port.containerPort, targetPort: 'metrics', protocol: 'TCP' }]);
    expect(patched.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    const monitor = find('ServiceMonitor', undefined, docsOf);
    expect(service.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
    // Only the metrics Service matches: the webhook's Service has another component label.
    expect(find('Service').metadata.labels).not.toMatchObject(monitor.spec.selector.matchLabels);
    expect(monitor.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', scheme: 'http', interval: '30s' }]);
    const policy = find('NetworkPolicy', 'karmada-interpreter-webhook-metrics', docsOf);
    expect(policy.spec.ingress[0].ports).toEqual([{ protocol: 'TCP', port: port.containerPort }]);
  });

  it('the customizations component mounts a ConfigMap as a whole folder and serves it with --customizations', () => {
    const patched = deploymentWith('customizations');
    const container = containerOf(patched);
    const config = serveConfig(container.args.slice(1), {});
    expect(config.customizations).toEqual(['/etc/karmada-interpreter/customizations']);
    const mount = container.volumeMounts.find((m: any) => m.mountPath === config.customizations[0]);
    expect(mount).toEqual({ name: 'customizations', mountPath: '/etc/karmada-interpreter/customizations', readOnly: true }); // no subPath: updates arrive
    const volume = patched.spec.template.spec.volumes.find((v: any) => v.name === mount.name);
    expect(volume).toEqual({ name: 'customizations', configMap: { name: 'karmada-interpreter-customizations' } });
    expect(componentDocs('customizations')).toEqual([]); // the ConfigMap is the user's (configMapGenerator in their overlay)
  });

  it('the components combine: each adds to args, ports, mounts and volumes without replacing another', () => {
    const all = containerOf(deploymentWith(...COMPONENTS));
    const baseArgs = containerOf(find('Deployment')).args;
    expect(all.args.slice(0, baseArgs.length)).toEqual(baseArgs);
    expect(all.args.length).toBe(baseArgs.length + 4);
    expect(all.ports.map((p: any) => p.name)).toEqual(['https', 'metrics']);
    expect(all.volumeMounts.map((m: any) => m.name)).toEqual(['tls', 'customizations', 'karmada-kubeconfig']);
    expect(() => serveConfig(all.args.slice(1), {})).not.toThrow();
  });

  it(`${WEBHOOK_CONFIGURATION_FILE} is what webhook-config generates from the registry now`, async () => {
    const committed = readFileSync(join(ROOT, WEBHOOK_CONFIGURATION_FILE), 'utf8');
    const generated = await renderWebhookConfiguration();
    expect(committed, `${WEBHOOK_CONFIGURATION_FILE} is stale (a kind or operation changed): run \`npm run manifests:update\` and commit the result`).toBe(
      generated,
    );
  });

  // Extra, where kubectl is installed (it is not part of the project's toolchain): kustomize itself builds
  // the base, and an overlay with every component, into the objects the checks above looked at.
  const withLabels = (object: any, labels: Record<string, string>) => ({
    ...object,
    metadata: { ...object.metadata, labels: { ...object.metadata.labels, ...labels } },
  });

  it.skipIf(!HAVE_KUBECTL)('kubectl kustomize builds the base into the expected objects', () => {
    const built = kustomize(MANIFESTS);
    expect(built.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(base.map((d) => `${d.object.kind}/${d.object.metadata.name}`).sort());
    const common = baseKustomization.labels[0].pairs;
    for (const object of built) expect(object.metadata.labels, object.metadata.name).toMatchObject(common);
    const deployment = built.find((o) => o.kind === 'Deployment');
    expect(deployment.spec.template.metadata.labels).toMatchObject(common);
    expect(deployment.spec.selector.matchLabels).toEqual(find('Deployment').spec.selector.matchLabels);
    expect(containerOf(deployment).image).toBe(`${baseKustomization.images[0].name}:${packageVersion}`);
  });

  it.skipIf(!HAVE_KUBECTL)('kubectl kustomize builds an overlay with every component, as the checks above patch them', () => {
    const overlay = mkdtempSync(join(tmpdir(), 'kiw-overlay-'));
    try {
      writeFileSync(join(overlay, 'my-cloneset.yaml'), 'apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\n');
      writeFileSync(
        join(overlay, 'kustomization.yaml'),
        stringify({
          apiVersion: 'kustomize.config.k8s.io/v1beta1',
          kind: 'Kustomization',
          // kustomize takes relative paths only.
          resources: [relative(overlay, MANIFESTS)],
          components: COMPONENTS.map((c) => relative(overlay, join(MANIFESTS, 'components', c))),
          configMapGenerator: [
            {
              name: 'karmada-interpreter-customizations',
              namespace: 'karmada-interpreter',
              files: ['my-cloneset.yaml'],
              options: { disableNameSuffixHash: true },
            },
          ],
        }),
      );
      const built = kustomize(overlay);
      const expected = [...base, ...COMPONENTS.flatMap(componentDocs)].map((d) => `${d.object.kind}/${d.object.metadata.name}`);
      expect(built.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([...expected, 'ConfigMap/karmada-interpreter-customizations'].sort());
      const common = baseKustomization.labels[0].pairs;
      for (const object of built.filter((o) => o.kind !== 'ConfigMap')) {
        expect(object.metadata.labels, object.metadata.name).toMatchObject(common);
        expect(object.metadata.labels['app.kubernetes.io/component'], object.metadata.name).toBeDefined();
        if (object.kind !== 'Namespace') expect(object.metadata.namespace).toBe(baseKustomization.namespace);
      }
      // The Deployment kustomize built is the one the tests above patched by hand (with the common labels).
      const deployment = built.find((o) => o.kind === 'Deployment');
      const byHand = deploymentWith(...COMPONENTS);
      containerOf(byHand).image = containerOf(deployment).image;
      byHand.spec.template.metadata.labels = { ...byHand.spec.template.metadata.labels, ...common };
      expect(deployment).toEqual(withLabels(byHand, common));
    } finally {
      rmSync(overlay, { recursive: true, force: true });
    }
  });
});
