// What can be checked about the image without a Docker engine: the Dockerfile's stages, user,
// entrypoint and copies, the build context, and that the code the image runs needs no dev dependency.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVE_OPTIONS } from '../../src/config.ts';
import { parseDockerfile, type Stage } from './dockerfile.ts';

const ROOT = resolve(import.meta.dirname, '../..');

const stages = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const runtime = stages.at(-1)!;
const stage = (name: string) => stages.find((s) => s.name === name)!;
const all = (s: Stage, op: string) => s.instructions.filter((i) => i.op === op);
const jsonArgs = (s: Stage, op: string) => JSON.parse(all(s, op).at(-1)!.args) as string[];

describe('Dockerfile', () => {
  it('is multi-stage and runs on a small distroless Node 26 base as uid 65532', () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    expect(runtime.base).toMatch(/^gcr\.io\/distroless\/nodejs26-debian13:nonroot(@sha256:[0-9a-f]{64})?$/);
    // A numeric uid: kubelet can only enforce runAsNonRoot when the image user is numeric.
    expect(all(runtime, 'USER').at(-1)!.args).toMatch(/^65532(:65532)?$/);
  });

  it('runs `dist/src/cli.js serve` and exposes the default port', () => {
    expect([...jsonArgs(runtime, 'ENTRYPOINT'), ...jsonArgs(runtime, 'CMD')]).toEqual(['/nodejs/bin/node', 'dist/src/cli.js', 'serve']);
    const defaultPort = SERVE_OPTIONS.find((o) => o.flag === 'port')!.default;
    expect(all(runtime, 'EXPOSE').map((i) => i.args)).toEqual([defaultPort]);
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin['karmada-interpreter']).toBe('bin/karmada-interpreter.js');
  });

  it('copies into the runtime stage only from other stages: production node_modules (fengari patched) and build output', () => {
    const copies = all(runtime, 'COPY');
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) expect(copy.args).toMatch(/--from=\S+/); // nothing from the build context
    const nodeModules = copies.filter((c) => /node_modules/.test(c.args));
    expect(nodeModules).toHaveLength(1);
    const from = stage(/--from=(\S+)/.exec(nodeModules[0]!.args)![1]!);
    const installs = all(from, 'RUN')
      .map((r) => r.args)
      .filter((r) => /npm (ci|install|i)\b/.test(r));
    expect(installs).toHaveLength(1);
    // --ignore-scripts skips our `postinstall` as well, so the stage runs it right after installing:
    // patch-package (a production dependency, there after --omit=dev) applies patches/ to fengari and
    // fails the build when the patch does not apply (docs/decisions/0010).
    expect(installs[0]).toMatch(/^npm ci --omit=dev --ignore-scripts && npm run postinstall( |$)/);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts.postinstall).toMatch(/^patch-package (.* )?--error-on-fail\b/);
    expect(pkg.dependencies).toHaveProperty('patch-package');
    const copyPatches = from.instructions.findIndex((i) => i.op === 'COPY' && /^patches \.?\/?(src\/)?patches\/?$/.test(i.args));
    expect(copyPatches).toBeGreaterThanOrEqual(0);
    expect(copyPatches).toBeLessThan(from.instructions.findIndex((i) => i.op === 'RUN' && i.args === installs[0]));
    // The build stage compiles and collects dist/, package.json (locates interpreters/) and the built-in Lua.
    const build = stage(/--from=(\S+)/.exec(copies.find((c) => !/node_modules/.test(c.args))!.args)![1]!);
    const script = all(build, 'RUN')
      .map((r) => r.args)
      .join('\n');
    expect(script).toMatch(/npm run build/);
    expect(script).toMatch(/cp -r dist package\.json \/out\//);
    expect(script).toMatch(/find interpreters -name customizations\.yaml/);
    expect(all(runtime, 'RUN')).toEqual([]); // distroless has no shell anyway
  });

  it('keeps node_modules, dist, .git and tests out of the build context', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['node_modules', 'dist', '.git', 'test']) expect(ignored).toContain(entry);
    // ...but not what the build and deps stages copy.
    const copied = [stage('build'), stage('deps')].flatMap((s) => all(s, 'COPY').flatMap((c) => c.args.split(/\s+/).slice(0, -1)));
    expect(copied).toContain('patches');
    for (const path of copied) expect(ignored).not.toContain(path);
  });

  it("builds JavaScript on the builder's platform; only the runtime stage is per target platform", () => {
    for (const name of ['build', 'deps']) expect(stage(name).platform, name).toBe('$BUILDPLATFORM');
    expect(runtime.platform).toBeUndefined();
    // That holds while no production dependency builds or picks anything per platform (package-lock.json).
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
    const production = Object.entries(lock.packages as Record<string, Record<string, unknown>>).filter(([path, entry]) => path !== '' && !entry.dev);
    expect(production.length).toBeGreaterThan(10);
    const perPlatform = production
      .filter(([, entry]) => entry.hasInstallScript || entry.os || entry.cpu || entry.optional || entry.devOptional)
      .map(([path]) => path);
    expect(perPlatform).toEqual([]);
  });

  it('the code in the image imports only production dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const production = new Set(Object.keys(pkg.dependencies));
    const bare = new Map<string, string>();
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) {
          if (name !== 'testdata') walk(path);
        } else if (path.endsWith('.ts') && !path.endsWith('.test.ts')) {
          const text = readFileSync(path, 'utf8');
          for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'([^'.][^']*)'/g)) {
            const spec = m[1]!;
            if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
            const pkgName = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
            bare.set(pkgName, path);
          }
        }
      }
    };
    walk(join(ROOT, 'src'));
    walk(join(ROOT, 'interpreters'));
    expect(bare.size).toBeGreaterThan(3);
    const notProduction = [...bare].filter(([name]) => !production.has(name)).map(([name, file]) => `${name} (${file})`);
    expect(notProduction).toEqual([]);
  });
});
