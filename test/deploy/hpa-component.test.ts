// manifests/components/hpa (issue 32, item 12): a HorizontalPodAutoscaler on CPU for the base Deployment.
// Everything it says about the base is checked against the base itself, so renaming the Deployment,
// moving the namespace, changing the replicas or the CPU request fails here until the component follows
// (the reasoning for the numbers: manifests/README.md, step 5). Where kubectl is installed, kustomize
// builds an overlay with the component and the result is checked the same way.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import fastJsonPatch from 'fast-json-patch';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { checkAgainstModel } from '../support/k8s-schema.ts';
import { HAVE_KUBECTL, kustomize } from './kubectl.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const MANIFESTS = join(ROOT, 'manifests');
const COMPONENT = join(MANIFESTS, 'components/hpa');
const readYaml = (path: string) => parse(readFileSync(path, 'utf8'));

const baseKustomization = readYaml(join(MANIFESTS, 'kustomization.yaml'));
const baseDeployment = readYaml(join(MANIFESTS, 'deployment.yaml'));
const basePdb = readYaml(join(MANIFESTS, 'poddisruptionbudget.yaml'));
const component = readYaml(join(COMPONENT, 'kustomization.yaml'));
const hpaFile = readYaml(join(COMPONENT, 'horizontalpodautoscaler.yaml'));

/** Cores of a Kubernetes CPU quantity (`100m`, `2`, `1.5`). */
function cores(quantity: string | number): number {
  const text = String(quantity);
  return text.endsWith('m') ? Number(text.slice(0, -1)) / 1000 : Number(text);
}

/** What is wrong with `hpa` as the autoscaler of `deployment` (the base's, or as kustomize built it). */
function hpaProblems(hpa: any, deployment: any, namespace: string, pdbMinAvailable: number): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, what: string) => ok || problems.push(what);
  check(hpa.apiVersion === 'autoscaling/v2' && hpa.kind === 'HorizontalPodAutoscaler', 'an autoscaling/v2 HorizontalPodAutoscaler');
  check(hpa.metadata?.namespace === namespace, `namespace ${namespace}`);
  const ref = hpa.spec?.scaleTargetRef ?? {};
  check(ref.apiVersion === deployment.apiVersion, `scaleTargetRef.apiVersion ${deployment.apiVersion}`);
  check(ref.kind === deployment.kind, `scaleTargetRef.kind ${deployment.kind}`);
  check(ref.name === deployment.metadata.name, `scaleTargetRef.name ${deployment.metadata.name}`);
  const { minReplicas, maxReplicas } = hpa.spec ?? {};
  // At least the base's replicas (2: one per node), and more than the PDB keeps, so a drain never stops.
  check(Number.isInteger(minReplicas) && minReplicas >= Math.max(2, baseDeployment.spec.replicas), `minReplicas >= ${baseDeployment.spec.replicas}`);
  check(minReplicas > pdbMinAvailable, `minReplicas > the PodDisruptionBudget's minAvailable ${pdbMinAvailable}`);
  check(Number.isInteger(maxReplicas) && maxReplicas > minReplicas && maxReplicas <= 20, 'minReplicas < maxReplicas <= 20');
  const metrics = hpa.spec?.metrics ?? [];
  check(metrics.length === 1, 'exactly one metric');
  const target = metrics[0]?.resource?.target ?? {};
  check(metrics[0]?.type === 'Resource' && metrics[0]?.resource?.name === 'cpu' && target.type === 'Utilization', 'metric: Resource cpu Utilization');
  // Utilization is a percentage of the container's CPU request: what it means in cores depends on the base.
  const container = deployment.spec.template.spec.containers[0];
  const request = cores(container.resources?.requests?.cpu ?? 0);
  const limit = cores(container.resources?.limits?.cpu ?? 0);
  const perPod = (target.averageUtilization / 100) * request;
  check(request > 0, 'the Deployment requests CPU (Utilization needs a request)');
  // Above the request (a pod at its request is far from busy: idle CPU is ~0, bench/README.md), and at most
  // half the one main thread that serves TLS, envelopes and TypeScript modules, so the 2x of Lua calls fits.
  check(Number.isInteger(target.averageUtilization) && perPod >= request && perPod <= 0.5, `target ${perPod} cores per pod: between the request and 0.5 core`);
  check(perPod < limit, `target ${perPod} cores per pod below the CPU limit ${limit}`);
  return problems;
}

describe('manifests/components/hpa', () => {
  it('is a kustomize Component listing its files, patching only the base Deployment', () => {
    expect(component.apiVersion).toBe('kustomize.config.k8s.io/v1alpha1');
    expect(component.kind).toBe('Component');
    const files = readdirSync(COMPONENT).filter((f) => f !== 'kustomization.yaml');
    expect([...component.resources].sort()).toEqual(files.sort());
    expect(component.patches).toHaveLength(1);
    expect(component.patches[0].target).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment', name: baseDeployment.metadata.name });
  });

  it("the HPA scales the base Deployment, with sane bounds and a CPU target that fits the base's request", () => {
    expect(checkAgainstModel(hpaFile, 'V2HorizontalPodAutoscaler')).toEqual([]);
    expect(hpaProblems(hpaFile, baseDeployment, baseKustomization.namespace, basePdb.spec.minAvailable)).toEqual([]);
    expect(hpaFile.metadata.labels).toMatchObject({ ...baseKustomization.labels[0].pairs, 'app.kubernetes.io/component': 'webhook' });
    expect(hpaFile.metadata.name).toBe(baseDeployment.metadata.name);
  });

  it('the checks catch drift from the base (so the test above can fail)', () => {
    const renamed = structuredClone(baseDeployment);
    renamed.metadata.name = 'webhook';
    expect(hpaProblems(hpaFile, renamed, baseKustomization.namespace, 1)).toEqual(['scaleTargetRef.name webhook']);
    const bigger = structuredClone(baseDeployment);
    bigger.spec.template.spec.containers[0].resources.requests.cpu = '500m'; // 300% of 500m = 1.5 cores
    expect(hpaProblems(hpaFile, bigger, baseKustomization.namespace, 1)).toEqual(['target 1.5 cores per pod: between the request and 0.5 core']);
    expect(hpaProblems(hpaFile, baseDeployment, 'elsewhere', 1)).toEqual(['namespace elsewhere']);
    expect(hpaProblems(hpaFile, baseDeployment, baseKustomization.namespace, 2)).toEqual(["minReplicas > the PodDisruptionBudget's minAvailable 2"]);
    const memory = structuredClone(hpaFile);
    memory.spec.metrics[0].resource.name = 'memory';
    expect(hpaProblems(memory, baseDeployment, baseKustomization.namespace, 1)).toEqual(['metric: Resource cpu Utilization']);
  });

  it("its patch drops the Deployment's replicas, so applying the manifests again leaves the autoscaler's count", () => {
    const patched = fastJsonPatch.applyPatch(structuredClone(baseDeployment), parse(component.patches[0].patch), true, false).newDocument;
    expect(patched.spec.replicas).toBeUndefined();
    expect(checkAgainstModel(patched, 'V1Deployment')).toEqual([]);
    expect({ ...patched.spec, replicas: baseDeployment.spec.replicas }).toEqual(baseDeployment.spec);
  });

  it.skipIf(!HAVE_KUBECTL)('kubectl kustomize builds an overlay with the component: the HPA finds the Deployment it scales', () => {
    const overlay = mkdtempSync(join(tmpdir(), 'kiw-hpa-'));
    try {
      writeFileSync(
        join(overlay, 'kustomization.yaml'),
        stringify({
          apiVersion: 'kustomize.config.k8s.io/v1beta1',
          kind: 'Kustomization',
          resources: [relative(overlay, MANIFESTS)],
          components: [relative(overlay, COMPONENT)],
        }),
      );
      const built = kustomize(overlay);
      const hpas = built.filter((o) => o.kind === 'HorizontalPodAutoscaler');
      expect(hpas).toHaveLength(1);
      const hpa = hpas[0];
      const ref = hpa.spec.scaleTargetRef;
      const target = built.filter((o) => o.apiVersion === ref.apiVersion && o.kind === ref.kind && o.metadata.name === ref.name);
      expect(target).toHaveLength(1);
      expect(target[0].metadata.namespace).toBe(hpa.metadata.namespace);
      expect(target[0].spec.replicas).toBeUndefined();
      const pdb = built.find((o) => o.kind === 'PodDisruptionBudget');
      expect(hpaProblems(hpa, target[0], baseKustomization.namespace, pdb.spec.minAvailable)).toEqual([]);
    } finally {
      rmSync(overlay, { recursive: true, force: true });
    }
  });
});
