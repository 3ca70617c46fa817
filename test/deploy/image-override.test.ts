// The image has one name, and the override manifests/README.md (step 2) documents changes it (issue 32:
// an overlay's `images: - name: karmada-interpreter-webhook` matched nothing, because the base had
// already renamed the image). The overlays are rendered without kubectl, by `renderImages` below: the
// two kustomize features they use, `resources` and the `images` transformer, evaluated as kustomize does.
// Where kubectl is installed, `kubectl kustomize` renders the same overlays and must agree.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { HAVE_KUBECTL, kustomize } from './kubectl.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const MANIFESTS = join(ROOT, 'manifests');
const IMAGE = 'ghcr.io/karmada-interpreter-webhook/karmada-interpreter-webhook';
const packageVersion: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

interface ImageEntry {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

/**
 * One `images:` entry applied to one image reference, as kustomize's imagetag filter does
 * (kubernetes-sigs/kustomize api/filters/imagetag/updater.go SetImageValue, with IsImageMatched and
 * Split from api/internal/image/image.go): `name` must be the whole name before the tag or digest
 * (kustomize builds the regular expression from it unescaped, as here); newName replaces the name;
 * newTag and digest each replace both the old tag and the old digest.
 */
function setImage(value: string, entry: ImageEntry): string {
  const matched = new RegExp('^' + entry.name + '(:[a-zA-Z0-9_.{}-]*)?(@[a-zA-Z][a-zA-Z0-9]*:[a-zA-Z0-9_.{}-]*)?$').test(value);
  if (!matched) return value;
  let [name, tag, digest] = split(value);
  if (entry.newName) name = entry.newName;
  if (entry.newTag && entry.digest) [tag, digest] = [entry.newTag, entry.digest];
  else if (entry.newTag) [tag, digest] = [entry.newTag, ''];
  else if (entry.digest) [tag, digest] = ['', entry.digest];
  return name + (tag ? `:${tag}` : '') + (digest ? `@${digest}` : '');
}

/** kustomize's image.Split: [[host[:port]/]component/]component[:tag][@digest], a port is not a tag. */
function split(image: string): [string, string, string] {
  let slash = image.indexOf('/');
  const search = slash > 0 ? image.slice(slash) : image;
  if (slash <= 0) slash = 0;
  const at = search.indexOf('@');
  const colon = search.indexOf(':');
  if (colon < 0 && at < 0) return [image, '', ''];
  if (at >= 0 && (at < colon || colon < 0)) return [image.slice(0, slash + at), '', image.slice(slash + at + 1)];
  if (at >= 0 && colon >= 0) return [image.slice(0, slash + colon), image.slice(slash + colon + 1, slash + at), image.slice(slash + at + 1)];
  return [image.slice(0, slash + colon), image.slice(slash + colon + 1), ''];
}

/** Every `image` of every container and init container, wherever they sit in the object (kustomize's default image fields). */
function eachContainer(node: unknown, visit: (container: Record<string, any>) => void): void {
  if (Array.isArray(node)) for (const item of node) eachContainer(item, visit);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'containers' || key === 'initContainers') && Array.isArray(value)) for (const c of value) if (typeof c?.image === 'string') visit(c);
      eachContainer(value, visit);
    }
  }
}

/**
 * The objects `kubectl kustomize DIR` builds, as far as images go: the `resources` (files, or
 * directories built first, so an overlay's transformers see its base's output), then this
 * kustomization's `images:` entries in order. Nothing else of kustomize is evaluated.
 */
function renderImages(dir: string): Record<string, any>[] {
  const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'));
  const objects = (kustomization.resources ?? []).flatMap((resource: string) => {
    const path = resolve(dir, resource);
    if (statSync(path).isDirectory()) return renderImages(path);
    return parseAllDocuments(readFileSync(path, 'utf8')).map((d) => d.toJS());
  });
  for (const entry of (kustomization.images ?? []) as ImageEntry[]) {
    for (const object of objects) eachContainer(object, (container) => (container.image = setImage(container.image, entry)));
  }
  return objects;
}

const imagesOf = (objects: Record<string, any>[]) => {
  const images: string[] = [];
  for (const object of objects) eachContainer(object, (c) => images.push(c.image));
  return images;
};

const kubectlImages = (dir: string) => imagesOf(kustomize(dir));

/** The overlay of manifests/README.md step 2, verbatim but for the path to the base. */
const readme = readFileSync(join(MANIFESTS, 'README.md'), 'utf8');
const readmeOverlay = (() => {
  const block = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.startsWith('# my-overlay/kustomization.yaml'));
  if (block === undefined) throw new Error('manifests/README.md step 2 has no overlay (# my-overlay/kustomization.yaml)');
  return parse(block);
})();

const overlays: string[] = [];
/** A kustomization in a new temporary directory, its `resources` pointing at the base. */
function overlay(fields: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kiw-image-'));
  overlays.push(dir);
  // kustomize takes relative paths only.
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [relative(dir, MANIFESTS)], ...fields }),
  );
  return dir;
}
afterAll(() => {
  for (const dir of overlays) rmSync(dir, { recursive: true, force: true });
});

describe('the image and how to override it', () => {
  it('the renderer does what the kustomize documentation of `images:` shows', () => {
    // kubectl.docs.kubernetes.io, kustomization "images": postgres renamed and retagged, nginx retagged,
    // my-demo-app renamed, alpine pinned by digest.
    const digest = 'sha256:24a0c4b4a4c0eb97a1aabb8e29f18e917d05abfe1b7a7c07857230879ce7d3d3';
    const entries: ImageEntry[] = [
      { name: 'postgres', newName: 'my-registry/my-postgres', newTag: 'v1' },
      { name: 'nginx', newTag: '1.8.0' },
      { name: 'my-demo-app', newName: 'my-app' },
      { name: 'alpine', digest },
    ];
    const apply = (image: string) => entries.reduce(setImage, image);
    expect(['postgres:8', 'nginx:1.7.9', 'my-demo-app:latest', 'alpine:3.7'].map(apply)).toEqual([
      'my-registry/my-postgres:v1',
      'nginx:1.8.0',
      'my-app:latest',
      `alpine@${digest}`,
    ]);
    // The name is matched whole: not a prefix, not a suffix; a registry port is not a tag.
    expect(setImage('nginx-exporter:1', { name: 'nginx', newTag: '2' })).toBe('nginx-exporter:1');
    expect(setImage('ghcr.io/x/nginx:1', { name: 'nginx', newTag: '2' })).toBe('ghcr.io/x/nginx:1');
    expect(setImage('localhost:5000/nginx:1', { name: 'localhost:5000/nginx', newTag: '2' })).toBe('localhost:5000/nginx:2');
    expect(setImage(`nginx:1@${digest}`, { name: 'nginx', newTag: '2' })).toBe('nginx:2');
  });

  it('one name: the Deployment names the release image in full, the base sets only its tag, the README overrides that name', () => {
    const deployment = parse(readFileSync(join(MANIFESTS, 'deployment.yaml'), 'utf8'));
    expect(deployment.spec.template.spec.containers.map((c: any) => c.image)).toEqual([IMAGE]);
    expect(parse(readFileSync(join(MANIFESTS, 'kustomization.yaml'), 'utf8')).images).toEqual([{ name: IMAGE, newTag: packageVersion }]);
    expect(readmeOverlay.images.map((i: ImageEntry) => i.name)).toEqual([IMAGE]);
    // Every image named in the install guides is this one (or the placeholders of your own registry).
    for (const file of ['manifests/README.md', 'README.md']) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const [name] of text.matchAll(/ghcr\.io\/[\w<>.-]+\/karmada-interpreter-webhook\b/g))
        expect(
          [
            IMAGE,
            'ghcr.io/<owner>/karmada-interpreter-webhook',
            'ghcr.io/<your owner>/karmada-interpreter-webhook',
            'ghcr.io/<repository owner>/karmada-interpreter-webhook',
          ],
          file,
        ).toContain(name);
    }
  });

  it('the base renders the release image of this version', () => {
    expect(imagesOf(renderImages(MANIFESTS))).toEqual([`${IMAGE}:${packageVersion}`]);
  });

  it("the README's overlay (step 2) renders its own image", () => {
    const dir = overlay({ images: readmeOverlay.images });
    expect(readmeOverlay.images[0]).toMatchObject({ newName: 'registry.example.com/karmada-interpreter-webhook' });
    expect(imagesOf(renderImages(dir))).toEqual([`registry.example.com/karmada-interpreter-webhook:${readmeOverlay.images[0].newTag}`]);
  });

  const digest = 'sha256:' + 'ab'.repeat(32);
  const cases: [string, ImageEntry[], string][] = [
    [
      'a fork: newName alone keeps the release tag',
      [{ name: IMAGE, newName: 'ghcr.io/my-fork/karmada-interpreter-webhook' }],
      `ghcr.io/my-fork/karmada-interpreter-webhook:${packageVersion}`,
    ],
    ['a digest replaces the tag', [{ name: IMAGE, newName: 'registry.example.com/kiw', digest }], `registry.example.com/kiw@${digest}`],
    ['another tag of the release image', [{ name: IMAGE, newTag: '0.2.0' }], `${IMAGE}:0.2.0`],
    // The defect of issue 32: the short name is not the name the base outputs, so nothing changes.
    [
      'the short name matches nothing',
      [{ name: 'karmada-interpreter-webhook', newName: 'registry.example.com/kiw', newTag: '1' }],
      `${IMAGE}:${packageVersion}`,
    ],
  ];
  it.each(cases)('overlay: %s', (_, images, expected) => {
    expect(imagesOf(renderImages(overlay({ images })))).toEqual([expected]);
  });

  it.skipIf(!HAVE_KUBECTL)('kubectl kustomize renders the base and every overlay above to the same images', () => {
    expect(kubectlImages(MANIFESTS)).toEqual(imagesOf(renderImages(MANIFESTS)));
    for (const images of [readmeOverlay.images, ...cases.map((c) => c[1])]) {
      const dir = overlay({ images });
      expect(kubectlImages(dir), JSON.stringify(images)).toEqual(imagesOf(renderImages(dir)));
    }
  });
});
