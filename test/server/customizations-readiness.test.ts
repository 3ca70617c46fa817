// /readyz and the metrics of a started server with broken user customizations: a file broken at start
// keeps it unready (a broken ConfigMap must stop a rolling update) unless --serve-with-broken-customizations;
// a reload that breaks a file keeps it ready, serving and reporting the file's last good copy.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { serveConfig } from '../../src/config.ts';
import { generateSelfSigned } from '../../src/server/certificates.ts';
import { startServing } from '../../src/server/start.ts';

const ric = (body: string) => `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: widget
spec:
  target:
    apiVersion: example.io/v1
    kind: Widget
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          ${body}
        end
`;
const GOOD = ric('return true');
const BROKEN = ric('return true end end');

describe('readiness with broken customizations', () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  async function start(widget: string, ...flags: string[]) {
    const dir = await mkdtemp(join(tmpdir(), 'kiw-ready-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const pair = await generateSelfSigned();
    await writeFile(join(dir, 'tls.crt'), pair.certPem);
    await writeFile(join(dir, 'tls.key'), pair.keyPem);
    const customizations = join(dir, 'customizations');
    await mkdir(customizations);
    const file = join(customizations, 'widget.yaml');
    await writeFile(file, widget);
    const args = ['--cert-dir', dir, '--port', '0', '--host', '127.0.0.1', '--log-level', 'silent', '--metrics-bind-address', '127.0.0.1:0'];
    const server = await startServing(serveConfig([...args, '--customizations', customizations, ...flags], {}));
    cleanup.push(server.close);
    const base = `http://127.0.0.1:${server.metricsPort}`;
    const readyz = async () => {
      const answer = await fetch(`${base}/readyz`);
      return { status: answer.status, customizations: (await answer.json()).checks.customizations as { ok: boolean; detail: string } };
    };
    const metrics = async () => (await fetch(`${base}/metrics`)).text();
    return { file, readyz, metrics };
  }

  it('is unready when a file fails to load at start, naming the file and the problem', async () => {
    const { file, readyz } = await start(BROKEN);
    await vi.waitFor(async () => expect((await readyz()).customizations).toBeDefined());
    const { status, customizations } = await readyz();
    expect(status).toBe(503);
    expect(customizations.ok).toBe(false);
    expect(customizations.detail).toContain(`${file} failed to load, not served: document 1 (widget): healthInterpretation (InterpretHealth): `);
    expect(customizations.detail).toContain('unready until it loads (--serve-with-broken-customizations serves the other files)');
  });

  it('is ready with --serve-with-broken-customizations, still naming the file', async () => {
    const { file, readyz } = await start(BROKEN, '--serve-with-broken-customizations');
    await vi.waitFor(async () => expect((await readyz()).status).toBe(200), { timeout: 20_000, interval: 100 });
    const { customizations } = await readyz();
    expect(customizations).toMatchObject({ ok: true, detail: expect.stringContaining(`${file} failed to load, not served: document 1 (widget)`) });
  });

  it('stays ready after a reload breaks a file, saying its last good copy serves, with a metric', async () => {
    const { file, readyz, metrics } = await start(GOOD);
    await vi.waitFor(async () => expect((await readyz()).status).toBe(200), { timeout: 20_000, interval: 100 });
    expect(await metrics()).not.toMatch(/^karmada_interpreter_lua_customization_serving_last_good\{/m);

    await writeFile(file, BROKEN);
    await vi.waitFor(async () => expect((await readyz()).customizations.detail).toContain('reload failed'), { timeout: 15_000, interval: 100 });
    const { status, customizations } = await readyz();
    expect(status).toBe(200);
    expect(customizations.ok).toBe(true);
    expect(customizations.detail).toMatch(
      new RegExp(
        `^serving the last good copy of ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}; reload failed: document 1 \\(widget\\): healthInterpretation \\(InterpretHealth\\): `,
      ),
    );
    expect(customizations.detail).not.toMatch(/not used/);
    const text = await metrics();
    expect(text).toContain(`karmada_interpreter_lua_customization_serving_last_good{file="${file}"} 1`);
    expect(text).toMatch(/^karmada_interpreter_lua_customization_load_errors 1$/m);

    await writeFile(file, GOOD.replace('return true', 'return false'));
    await vi.waitFor(async () => expect((await readyz()).customizations.detail).toBe('all customization files loaded'), { timeout: 15_000, interval: 100 });
    expect(await metrics()).not.toMatch(/^karmada_interpreter_lua_customization_serving_last_good\{/m);
  });
});
