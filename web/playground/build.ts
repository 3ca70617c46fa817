// Bundles the playground's page (web/playground/) into dist/playground/main.js and main.css: one script
// and one stylesheet the server serves itself, so the page fetches nothing from another origin. Run by
// `npm run build` (and scripts/build-if-stale.ts for `npm start`). It lives outside src/ because esbuild
// and CodeMirror are build-time dependencies: nothing of them is imported by the code the image runs.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Writes main.js and main.css to outdir (dist/playground of root by default). */
export async function buildPlaygroundAssets(root: string, outdir = join(root, 'dist', 'playground')): Promise<void> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(root, 'web', 'playground', 'main.ts')],
    outdir,
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'warning',
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await buildPlaygroundAssets(resolve(import.meta.dirname, '..', '..'));
}
