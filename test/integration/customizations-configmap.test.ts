// The customizations component mounts a ConfigMap as a folder for `--customizations`. Kubelet writes
// such a volume as Kubernetes' AtomicWriter does (kubernetes pkg/volume/util/atomic_writer.go): the
// files live in a timestamped ..<date> folder, `..data` links to it, each key is a link through
// `..data`, and an update writes a new folder and renames a fresh link over `..data`. The real server
// must read that layout once (not the hidden copies) and reload on the swap, answering with the new Lua.
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/interpreter/setup.ts';
import { send, spawnServer, type SpawnedServer } from '../support/spawned-server.ts';

const customization = (healthy: boolean) => `apiVersion: config.karmada.io/v1alpha1
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
          return ${healthy}
        end
`;

/** Writes one version of the ConfigMap's data the way kubelet does, swapping `..data` atomically. */
async function writeConfigMapVolume(dir: string, version: string, data: Record<string, string>) {
  const stamp = `..2026_01_01_00_00_0${version}.000000001`;
  await mkdir(join(dir, stamp));
  for (const [key, text] of Object.entries(data)) await writeFile(join(dir, stamp, key), text);
  await symlink(stamp, join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data'));
  for (const key of Object.keys(data)) await symlink(join('..data', key), join(dir, key)).catch(() => undefined); // exists after the first version
}

const healthOf = async (server: SpawnedServer) => {
  const answer = await send(server, {
    path: '/interpret',
    body: JSON.stringify({
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterContext',
      request: {
        uid: '00000000-0000-0000-0000-000000000001',
        kind: { group: 'example.io', version: 'v1', kind: 'Widget' },
        name: 'w',
        namespace: 'default',
        operation: 'InterpretHealth',
        object: { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' } },
      },
    }),
  });
  expect(answer.status).toBe(200);
  const { response } = JSON.parse(answer.body);
  expect(response.successful, answer.body).toBe(true);
  return response.healthy as boolean;
};

describe('customizations from a ConfigMap volume', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('are served once from the mounted layout and reloaded when kubelet swaps ..data', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kiw-configmap-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    await writeConfigMapVolume(dir, '1', { 'widget.yaml': customization(true) });

    const server = await spawnServer(['--customizations', dir, '--log-level', 'info']);
    cleanup.push(server.stop);
    // One kind more than the built-in ones, though three paths lead to the file, and no complaint about it.
    const builtIn = await createRegistry();
    const builtInKinds = builtIn.registry.served().length;
    builtIn.close();
    expect(server.logs.find((l) => l.msg === 'serving')!.kinds).toBe(builtInKinds + 1);
    expect(server.logs.filter((l) => l.level >= 40)).toEqual([]);
    expect(await healthOf(server)).toBe(true);

    await writeConfigMapVolume(dir, '2', { 'widget.yaml': customization(false) });
    await rm(join(dir, '..2026_01_01_00_00_01.000000001'), { recursive: true });
    const deadline = Date.now() + 15_000;
    let healthy = true;
    while (Date.now() < deadline && (healthy = await healthOf(server))) await new Promise((r) => setTimeout(r, 100));
    expect(healthy).toBe(false);
  });

  it('keep the pod unready when the ConfigMap is broken at start, and ready once an update fixes it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kiw-configmap-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    await writeConfigMapVolume(dir, '1', { 'widget.yaml': customization(true).replace('return true', 'return true end end') });

    const server = await spawnServer(['--customizations', dir, '--log-level', 'info']);
    cleanup.push(server.stop);
    const readyz = async () => {
      const answer = await send(server, { path: '/readyz' });
      return { status: answer.status, customizations: JSON.parse(answer.body).checks.customizations as { ok: boolean; detail: string } };
    };
    const broken = await readyz();
    expect(broken.status).toBe(503);
    expect(broken.customizations.ok).toBe(false);
    expect(broken.customizations.detail).toContain(
      `${join(dir, 'widget.yaml')} failed to load, not served: document 1 (widget): healthInterpretation (InterpretHealth): `,
    );

    await writeConfigMapVolume(dir, '2', { 'widget.yaml': customization(false) });
    const deadline = Date.now() + 15_000;
    let now = broken;
    while (Date.now() < deadline && (now = await readyz()).status !== 200) await new Promise((r) => setTimeout(r, 100));
    expect(now.status).toBe(200);
    expect(now.customizations).toEqual({ ok: true, detail: 'all customization files loaded' });
    expect(await healthOf(server)).toBe(false);
  });
});
