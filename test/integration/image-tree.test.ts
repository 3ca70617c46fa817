// The image's file tree, assembled here without a Docker engine by following the Dockerfile itself:
// each stage's COPY from the build context and its RUN commands (run with sh in a temporary folder
// standing for the stage's root), then the runtime stage's COPY --from, ENV, ENTRYPOINT and CMD. The
// server is then started from that tree on the project's Node.js (node_modules/.bin/node, the major
// the distroless base carries) with the image's entrypoint and command, and must reach /readyz; the
// entrypoint's other commands must work from it too.
// Two stand-ins, because a test must not reinstall the toolchain nor empty the developer's npm cache:
// the build stage's `npm ci` (all dependencies, to compile) links this checkout's node_modules, made
// from the same lockfile; `npm cache clean --force` (which only slims the image layer) is skipped.
// It takes about a minute on two cores (a TypeScript build and an `npm ci --omit=dev`), so it runs
// only when asked: KARMADA_INTERPRETER_IMAGE_TREE=1 npx vitest run test/integration/image-tree.test.ts
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/interpreter/setup.ts';
import { generateSelfSigned } from '../../src/server/certificates.ts';
import { execForm, parseDockerfile, type Stage } from '../deploy/dockerfile.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const enabled = process.env.KARMADA_INTERPRETER_IMAGE_TREE === '1';
const NODE = process.execPath; // npm scripts and vitest run on node_modules/.bin/node
const work = enabled ? mkdtempSync(join(tmpdir(), 'kiw-image-tree-')) : '';
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const stages = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const rootOf = (stage: Stage) => join(work, 'stages', stage.name ?? String(stages.indexOf(stage)));
/** A path inside the image, mapped into the stage's folder. */
const inStage = (stage: Stage, path: string) => join(rootOf(stage), path);

/** Runs one stage as BuildKit would, in its folder: WORKDIR, COPY from the context, RUN with sh. */
function buildStage(stage: Stage) {
  let workdir = '/';
  mkdirSync(rootOf(stage), { recursive: true });
  for (const { op, args } of stage.instructions) {
    if (op === 'WORKDIR') {
      workdir = args;
      mkdirSync(inStage(stage, workdir), { recursive: true });
    } else if (op === 'COPY') {
      expect(args, 'a build stage copies from the context only').not.toMatch(/--from/);
      const parts = args.split(/\s+/);
      const target = parts.pop()!;
      const destination = resolve(workdir, target);
      // Several sources, or a destination ending in '/', name a folder to copy into.
      const intoFolder = parts.length > 1 || target.endsWith('/');
      for (const source of parts) cpSync(join(ROOT, source), join(inStage(stage, destination), intoFolder ? source : ''), { recursive: true });
    } else if (op === 'RUN') {
      const commands = args
        .split(/\s+&&\s+/)
        .filter((c) => !/^npm cache clean\b/.test(c))
        .map((c) => c.replace(/(^|\s)\/(out|src)\b/g, (_m, lead, dir) => `${lead}${inStage(stage, `/${dir}`)}`));
      for (const command of commands) {
        const cwd = inStage(stage, workdir);
        if (/^npm ci\b/.test(command) && !/--omit=dev/.test(command)) {
          symlinkSync(join(ROOT, 'node_modules'), join(cwd, 'node_modules'));
          continue;
        }
        const run = spawnSync('sh', ['-c', command], {
          cwd,
          encoding: 'utf8',
          env: {
            ...process.env,
            PATH: `${dirname(NODE)}:${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
            npm_config_prefer_offline: 'true',
            npm_config_audit: 'false',
            npm_config_fund: 'false',
          },
        });
        expect(run.status, `${stage.name}: ${command}\n${run.stdout}\n${run.stderr}`).toBe(0);
      }
    }
  }
}

const runtime = stages.at(-1)!;
const app = () => inStage(runtime, '/app');
const entrypoint = () => execForm(runtime.instructions.filter((i) => i.op === 'ENTRYPOINT').at(-1)!);
const command = () => execForm(runtime.instructions.filter((i) => i.op === 'CMD').at(-1)!);
const imageEnv = () => Object.fromEntries(runtime.instructions.filter((i) => i.op === 'ENV').map((i) => i.args.split('=', 2) as [string, string]));

/** The image's entrypoint with other arguments, on the project's Node.js, from the image's workdir. */
function runImage(args: string[], env: NodeJS.ProcessEnv = {}) {
  const [, ...script] = entrypoint();
  return spawnSync(NODE, [...script, ...args], { cwd: app(), encoding: 'utf8', env: { PATH: process.env.PATH, ...imageEnv(), ...env }, timeout: 60_000 });
}

describe.skipIf(!enabled)('the image tree (set KARMADA_INTERPRETER_IMAGE_TREE=1 to run)', () => {
  it("is assembled by the Dockerfile's own steps, with production dependencies only", () => {
    for (const stage of stages.slice(0, -1)) buildStage(stage);
    let workdir = '/';
    for (const { op, args } of runtime.instructions) {
      if (op === 'WORKDIR') workdir = args;
      if (op !== 'COPY') continue;
      const [, from, source, destination] = /--from=(\S+)\s+(?:--chown=\S+\s+)?(\S+)\s+(\S+)$/.exec(args)!;
      const stage = stages.find((s) => s.name === from)!;
      cpSync(inStage(stage, source!), join(inStage(runtime, resolve(workdir, destination!))), { recursive: true });
    }
    const modules = readdirSync(join(app(), 'node_modules'));
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    for (const dependency of Object.keys(pkg.dependencies)) expect(existsSync(join(app(), 'node_modules', dependency)), dependency).toBe(true);
    for (const dev of ['typescript', 'vitest', 'node', 'autocannon', 'eslint']) expect(modules).not.toContain(dev);
    expect(existsSync(join(app(), 'dist/src/cli.js'))).toBe(true);
    // The built-in Lua customizations the server loads from interpreters/, and no test data.
    const lua = execFileSync('find', ['interpreters', '-name', '*.yaml'], { cwd: app(), encoding: 'utf8' }).trim().split('\n');
    expect(lua.length).toBeGreaterThan(0);
    expect(lua.every((f) => f.endsWith('/customizations.yaml') && !f.includes('/testdata/'))).toBe(true);
  }, 300_000);

  it("starts the server with the image's entrypoint and command and reaches /readyz, serving every built-in kind", async () => {
    const certs = await generateSelfSigned();
    const certDir = join(work, 'certs');
    mkdirSync(certDir);
    writeFileSync(join(certDir, 'tls.crt'), certs.certPem);
    writeFileSync(join(certDir, 'tls.key'), certs.keyPem);
    const [, ...script] = entrypoint();
    // Configured through the environment, as a Deployment may: the arguments are the image's.
    const child = spawn(NODE, [...script, ...command()], {
      cwd: app(),
      env: {
        PATH: process.env.PATH,
        ...imageEnv(),
        KARMADA_INTERPRETER_PORT: '0',
        KARMADA_INTERPRETER_HOST: '127.0.0.1',
        KARMADA_INTERPRETER_CERT_DIR: certDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const serving = await new Promise<Record<string, any>>((resolveServing, reject) => {
        let buffer = '';
        let stderr = '';
        child.stderr!.on('data', (c) => (stderr += c));
        child.stdout!.on('data', (chunk) => {
          buffer += chunk;
          for (const line of buffer.split('\n').slice(0, -1)) {
            try {
              const entry = JSON.parse(line);
              if (entry.msg === 'serving') resolveServing(entry);
            } catch {
              // not a log line
            }
          }
          buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
        });
        child.on('exit', (code) => reject(new Error(`server exited (${code}): ${stderr}`)));
      });
      const ready = await new Promise<{ status: number; body: string }>((resolveReady, reject) => {
        const req = request({ host: '127.0.0.1', port: serving.port, path: '/readyz', servername: 'localhost', ca: certs.caPem }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolveReady({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(ready.status, ready.body).toBe(200);
      const checkout = await createRegistry();
      expect(serving.kinds).toBe(checkout.registry.served().length);
      checkout.close();
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);

  it("runs the entrypoint's other commands: --help, webhook-config, register", () => {
    const help = runImage(['--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/webhook-config/);

    const config = runImage(['webhook-config', '--url', 'https://karmada-interpreter-webhook.karmada-interpreter.svc:443/interpret']);
    expect(config.status, config.stderr).toBe(0);
    const committed = parse(readFileSync(join(ROOT, 'manifests/karmada/resource-interpreter-webhook-configuration.yaml'), 'utf8'));
    expect(parse(config.stdout)).toEqual(committed);

    // register loads @kubernetes/client-node from the production dependencies before it reads the kubeconfig.
    const register = runImage([
      'register',
      '--kubeconfig',
      join(work, 'no-such-kubeconfig'),
      '--url',
      'https://x.example/interpret',
      '--ca-file',
      join(work, 'certs', 'tls.crt'),
    ]);
    expect(register.stderr).toMatch(/no-such-kubeconfig \(--kubeconfig\) does not exist/);
    expect(register.status).toBe(2);
  }, 60_000);
});
