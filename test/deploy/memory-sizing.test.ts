// The Deployment's memory limit holds what its flags can take (src/server/memory-fit.ts, decision 0017),
// with every optional component applied: the server would otherwise refuse to start in the pod (exit 2),
// or, without the check, be killed by the kernel under load.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fastJsonPatch from 'fast-json-patch';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { serveConfig } from '../../src/config.ts';
import { fitMemory, memoryNeeded } from '../../src/server/memory-fit.ts';

const MANIFESTS = resolve(import.meta.dirname, '../../manifests');
const MiB = 1024 * 1024;
const deploymentText = readFileSync(join(MANIFESTS, 'deployment.yaml'), 'utf8');
const COMPONENTS = ['service-monitor', 'customizations', 'register', 'hpa'];

/** A Kubernetes memory quantity in bytes (the suffixes a memory limit is written with). */
function quantity(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(text));
  if (!match) throw new Error(`not a memory quantity: ${text}`);
  const unit = { Ki: 1024, Mi: MiB, Gi: 1024 * MiB, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9, T: 1e12 }[match[2] ?? ''] ?? 1;
  return Number(match[1]) * unit;
}

function deploymentWith(components: string[]) {
  let deployment = parse(deploymentText);
  for (const component of components) {
    const kustomization = parse(readFileSync(join(MANIFESTS, 'components', component, 'kustomization.yaml'), 'utf8'));
    for (const patch of kustomization.patches ?? [])
      if (patch.target?.kind === 'Deployment') deployment = fastJsonPatch.applyPatch(deployment, parse(patch.patch), true, false).newDocument;
  }
  return deployment.spec.template.spec.containers[0];
}

describe('the Deployment memory limit', () => {
  for (const components of [[], COMPONENTS]) {
    it(`holds what the flags can take${components.length ? ' with every component' : ''}`, () => {
      const container = deploymentWith(components);
      const env = Object.fromEntries((container.env ?? []).map((e: { name: string; value: string }) => [e.name, e.value]));
      const config = serveConfig(container.args.slice(1), env);
      // Explicit, so the pod does not size itself by the node's CPUs.
      expect(config.luaWorkersAuto).toBe(false);
      const limit = { bytes: quantity(container.resources.limits.memory), file: 'deployment.yaml' };
      expect(memoryNeeded(config)).toBeLessThanOrEqual(limit.bytes);
      expect(fitMemory(config, limit).luaWorkers).toBe(config.luaWorkers);
    });
  }

  it('the comment beside the flags gives what they need', () => {
    const container = deploymentWith([]);
    const config = serveConfig(container.args.slice(1), {});
    expect(deploymentText).toContain(`need ${Math.ceil(memoryNeeded(config) / MiB)} MiB at worst`);
  });
});
