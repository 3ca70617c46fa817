// The release workflow publishes the image the kustomize base names, for every architecture the
// manifests may land on, with the OCI labels, SBOM and provenance a platform team checks.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const workflow = parse(readFileSync(join(ROOT, '.github/workflows/release.yaml'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const kustomization = parse(readFileSync(join(ROOT, 'manifests/kustomization.yaml'), 'utf8'));
const job = workflow.jobs.image;
const step = (uses: string) => {
  const found = job.steps.filter((s: any) => typeof s.uses === 'string' && s.uses.startsWith(`${uses}@`));
  expect(found, uses).toHaveLength(1);
  return found[0];
};

describe('release workflow', () => {
  it('runs on a v* tag, checks the tag against package.json and tests before it builds', () => {
    expect(workflow.on).toEqual({ push: { tags: ['v*'] } });
    const names = job.steps.map((s: any) => s.name ?? s.uses);
    const build = names.findIndex((n: string) => n.startsWith('docker/build-push-action'));
    expect(names.indexOf('The tag is the version in package.json')).toBeGreaterThanOrEqual(0);
    expect(names.indexOf('Test')).toBeLessThan(build);
    expect(job.steps.find((s: any) => s.name === 'Test').run).toMatch(/npm ci[^\n]*\n\s*npm run typecheck\n\s*npm test/);
    expect(job.permissions).toEqual({ contents: 'read', packages: 'write' });
  });

  it('builds linux/amd64 and linux/arm64 with buildx, pushes with labels, annotations, an SBOM and provenance', () => {
    for (const action of ['docker/setup-qemu-action', 'docker/setup-buildx-action', 'docker/login-action']) step(action);
    const build = step('docker/build-push-action').with;
    expect(build.platforms.split(',').sort()).toEqual(['linux/amd64', 'linux/arm64']);
    expect(build).toMatchObject({ context: '.', push: true, sbom: true, provenance: 'mode=max' });
    expect(build.tags).toBe('${{ steps.meta.outputs.tags }}');
    expect(build.labels).toBe('${{ steps.meta.outputs.labels }}');
    expect(build.annotations).toBe('${{ steps.meta.outputs.annotations }}');
    // metadata-action sets org.opencontainers.image.{source,revision,version,created,url,description}
    // from the repository and tag; the license is the project's.
    const meta = step('docker/metadata-action');
    expect(meta.id).toBe('meta');
    expect(meta.with.labels).toContain(`org.opencontainers.image.licenses=${pkg.license}`);
  });

  it('pushes the image the kustomize base names, tagged with the version', () => {
    const meta = step('docker/metadata-action').with;
    expect(meta.images).toBe('${{ env.IMAGE }}');
    expect(job.env.IMAGE).toBe('ghcr.io/${{ github.repository_owner }}/karmada-interpreter-webhook');
    const [image] = kustomization.images;
    // The base's image is what this project's repository (owner karmada-interpreter-webhook) pushes;
    // a fork's token pushes only under the fork's owner.
    expect(image.name).toBe(job.env.IMAGE.replace('${{ github.repository_owner }}', 'karmada-interpreter-webhook'));
    expect(image.newName).toBeUndefined();
    // type=semver {{version}} turns tag v0.1.0 into image tag 0.1.0: the base's newTag.
    expect(meta.tags).toContain('type=semver,pattern={{version}}');
    expect(image.newTag).toBe(pkg.version);
  });

  it("warns when it pushes another image than the manifests' (a fork), with the overlay's override", () => {
    const check = job.steps.find((s: any) => s.name === 'The image the manifests name');
    expect(job.steps.indexOf(check)).toBeLessThan(job.steps.findIndex((s: any) => s.uses?.startsWith('docker/build-push-action@')));
    const run = (image: string) =>
      execFileSync('bash', ['--norc', '--noprofile', '-c', check.run], { cwd: ROOT, env: { PATH: process.env.PATH, IMAGE: image }, encoding: 'utf8' });
    const [{ name }] = kustomization.images;
    expect(run(name)).toBe('');
    // GitHub keeps the owner's case; ghcr.io names are lower case.
    expect(run('ghcr.io/Karmada-Interpreter-Webhook/karmada-interpreter-webhook')).toBe('');
    expect(run('ghcr.io/My-Fork/karmada-interpreter-webhook')).toBe(
      `::warning::this release pushes ghcr.io/my-fork/karmada-interpreter-webhook, manifests/ runs ${name}; overlays select this image with images: [{name: ${name}, newName: ghcr.io/my-fork/karmada-interpreter-webhook}]\n`,
    );
  });
});
