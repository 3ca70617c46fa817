// Every manifest parses and conforms to its schema (client-node's Kubernetes models for built-in
// kinds, hand-written ajv schemas for cert-manager, Karmada and kustomize files), the pieces agree
// with each other and with the server's flags, and the Karmada configuration is what the registry
// generates now.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import fastJsonPatch from 'fast-json-patch';
import { parseAllDocuments, parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { serveConfig } from '../../src/config.ts';
import { renderWebhookConfiguration, WEBHOOK_CONFIGURATION_FILE, WEBHOOK_URL } from '../../scripts/update-manifests.ts';
import { builtinModelFor, checkAgainstModel } from '../support/k8s-schema.ts';
import { checkAgainstSchema } from './manifest-schemas.ts';

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
const find = (kind: string, name?: string) => {
  const found = ours.filter((d) => d.object.kind === kind && (name === undefined || d.object.metadata?.name === name) && !d.file.startsWith('karmada/'));
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0]!.object;
};

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
    const kustomization = parse(readFileSync(join(MANIFESTS, 'kustomization.yaml'), 'utf8'));
    const rootFiles = readdirSync(MANIFESTS).filter((f) => /\.yaml$/.test(f) && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(rootFiles.sort());
    for (const { file, object } of ours.filter((d) => !d.file.includes('/') && d.file !== 'kustomization.yaml')) {
      if (object.kind !== 'Namespace') expect(object.metadata.namespace, file).toBe(kustomization.namespace);
    }
    expect(find('Namespace').metadata.name).toBe(kustomization.namespace);
    expect(kustomization.images.map((i: any) => i.name)).toContain(find('Deployment').spec.template.spec.containers[0].image);
  });

  it('Deployment: 2 replicas spread over nodes, hardened, HTTPS probes, resources, graceful shutdown within the grace period', () => {
    const deployment = find('Deployment');
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    const podLabels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.selector.matchLabels).toEqual(podLabels);
    const antiAffinity = pod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm;
    expect(antiAffinity.topologyKey).toBe('kubernetes.io/hostname');
    expect(antiAffinity.labelSelector.matchLabels).toEqual(podLabels);

    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] } });
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
    const podLabels = deployment.spec.template.metadata.labels;
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
    const component = parse(readFileSync(join(MANIFESTS, 'register/kustomization.yaml'), 'utf8'));
    for (const resource of component.resources) expect(existsSync(join(MANIFESTS, 'register', resource))).toBe(true);
    const deployment = structuredClone(find('Deployment'));
    const operations = parse(component.patches[0].patch);
    const patched = fastJsonPatch.applyPatch(deployment, operations, true, false).newDocument;
    expect(checkAgainstModel(patched, 'V1Deployment')).toEqual([]);
    const container = patched.spec.template.spec.containers[0];
    const config = serveConfig(container.args.slice(1), {});
    expect(config.register).toMatchObject({ url: WEBHOOK_URL, timeoutSeconds: 10 });
    const kubeconfigMount = container.volumeMounts.find((m: any) => config.register!.kubeconfig.startsWith(m.mountPath + '/'));
    expect(kubeconfigMount.readOnly).toBe(true);
    expect(patched.spec.template.spec.volumes.find((v: any) => v.name === kubeconfigMount.name).secret.secretName).toBe('karmada-interpreter-register-kubeconfig');
    // Self-registration publishes the same object as the committed file (same name, webhook name, timeout).
    const committed = parse(readFileSync(join(ROOT, WEBHOOK_CONFIGURATION_FILE), 'utf8'));
    expect(config.register!.name).toBe(committed.metadata.name);
    expect(config.register!.webhookName).toBe(committed.webhooks[0].name);
    expect(config.register!.timeoutSeconds).toBe(committed.webhooks[0].timeoutSeconds);
    const rbac = ours.filter((d) => d.file === 'karmada/register-rbac.yaml').map((d) => d.object);
    const role = rbac.find((o) => o.kind === 'ClusterRole')!;
    // Server-side apply (get, create and patch of that one object) and the list behind the precedence warning.
    const rule = (resource: string) => role.rules.filter((r: any) => r.apiGroups.includes('config.karmada.io') && r.resources.includes(resource));
    expect(rule('resourceinterpreterwebhookconfigurations')).toEqual([{ apiGroups: ['config.karmada.io'], resources: ['resourceinterpreterwebhookconfigurations'], resourceNames: [committed.metadata.name], verbs: ['get', 'create', 'patch'] }]);
    expect(rule('resourceinterpretercustomizations')).toEqual([{ apiGroups: ['config.karmada.io'], resources: ['resourceinterpretercustomizations'], verbs: ['list'] }]);
    expect(role.rules).toHaveLength(2);
  });

  it(`${WEBHOOK_CONFIGURATION_FILE} is what webhook-config generates from the registry now`, async () => {
    const committed = readFileSync(join(ROOT, WEBHOOK_CONFIGURATION_FILE), 'utf8');
    const generated = await renderWebhookConfiguration();
    expect(committed, `${WEBHOOK_CONFIGURATION_FILE} is stale (a kind or operation changed): run \`npm run manifests:update\` and commit the result`).toBe(generated);
  });

  const kubectl = (() => {
    try {
      execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  // Extra, where kubectl is installed (it is not part of the project's toolchain): kustomize itself builds the base.
  it.skipIf(!kubectl)('kubectl kustomize builds the base into the expected objects', () => {
    const out = execFileSync('kubectl', ['kustomize', MANIFESTS], { encoding: 'utf8' });
    const built = parseAllDocuments(out).map((d) => d.toJS());
    expect(built.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
      ours.filter((d) => dirname(d.file) === '.' && d.file !== 'kustomization.yaml').map((d) => `${d.object.kind}/${d.object.metadata.name}`).sort(),
    );
    expect(built.find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].image).toBe('karmada-interpreter-webhook:0.1.0');
  });
});
