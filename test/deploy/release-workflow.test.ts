// The release workflow publishes the image the kustomize base names, for every architecture the
// manifests may land on, with the OCI labels, SBOM and provenance a platform team checks.
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
    // Same registry and repository name; the owner is whoever publishes (a fork publishes its own).
    expect(image.newName.replace(/^ghcr\.io\/[^/]+\//, 'ghcr.io/${{ github.repository_owner }}/')).toBe(job.env.IMAGE);
    // type=semver {{version}} turns tag v0.1.0 into image tag 0.1.0: the base's newTag.
    expect(meta.tags).toContain('type=semver,pattern={{version}}');
    expect(image.newTag).toBe(pkg.version);
  });
});
