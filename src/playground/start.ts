// Starts the playground: the server's registry (createRegistry, with --customizations and --examples),
// Karmada's thirdparty customizations when given, the samples, and the HTTP server on loopback.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadCustomizations, type LoadResult } from '../customizations/loader.ts';
import type { LayerName } from '../interpreter/registry.ts';
import { createRegistry, type LoadedRegistry } from '../interpreter/setup.ts';
import { SampleLibrary } from './cases.ts';
import { PlaygroundEngine } from './engine.ts';
import { buildPlaygroundApp } from './server.ts';

/** How the kind picker says where a kind comes from (its highest layer). */
const LAYER_LABEL: Record<LayerName, string> = { 'user-lua': 'your customization', 'builtin-ts': 'built in', 'builtin-lua': 'shipped example' };

export interface PlaygroundStartOptions {
  /** 0 picks a free port. */
  port: number;
  /** Loopback only: 127.0.0.1 (default) or ::1. */
  host?: '127.0.0.1' | '::1';
  customizations?: string[];
  examples?: string[];
  /** Karmada's pkg/resourceinterpreter/default/thirdparty/resourcecustomizations (or any folder of its RICs). */
  karmadaCustomizations?: string;
  luaTimeoutMs?: number;
  /** Where the built page is; dist/playground of the package by default. */
  assetsDir?: string;
  token?: string;
}

export interface RunningPlayground {
  url: string;
  /** False when the page's script is not built (dist/playground/main.js): the page says so too. */
  pageBuilt: boolean;
  port: number;
  token: string;
  loaded: LoadedRegistry;
  karmada?: LoadResult;
  close(): Promise<void>;
}

/** The package's root (the folder of its package.json), from here in src/ or in dist/src/. */
export function packageRoot(from = import.meta.dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export async function startPlayground(options: PlaygroundStartOptions): Promise<RunningPlayground> {
  const root = packageRoot();
  const loaded = await createRegistry({ customizations: options.customizations ?? [], examples: options.examples ?? [], luaTimeoutMs: options.luaTimeoutMs });
  try {
    const karmada = options.karmadaCustomizations
      ? await loadCustomizations([options.karmadaCustomizations], { runtime: loaded.untrusted, timeoutMs: options.luaTimeoutMs })
      : undefined;
    const engine = new PlaygroundEngine({ loaded, karmada, luaTimeoutMs: options.luaTimeoutMs });
    const requestsDir = join(root, 'examples', 'requests');
    const requests = existsSync(requestsDir)
      ? readdirSync(requestsDir)
          .filter((f) => f.endsWith('.json'))
          .map((f) => join(requestsDir, f))
      : [];
    const samples = await SampleLibrary.find(
      [{ dir: join(root, 'interpreters'), label: 'interpreters' }, ...(options.customizations ?? []).map((dir) => ({ dir, label: dir }))],
      requests,
    );
    const kinds = loaded.registry.served().map((served) => ({
      apiVersion: served.apiVersion,
      kind: served.kind,
      operations: served.operations,
      layer: LAYER_LABEL[loaded.registry.interpretersFor(served.apiVersion, served.kind)[0]?.layer ?? 'builtin-ts'],
    }));
    const assetsDir = options.assetsDir ?? join(root, 'dist', 'playground');
    const playground = buildPlaygroundApp({ engine, samples, kinds, assetsDir, token: options.token });
    const host = options.host ?? '127.0.0.1';
    await playground.app.listen({ port: options.port, host });
    const address = playground.app.server.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    playground.allowHosts(port);
    return {
      url: `http://${host === '::1' ? '[::1]' : host}:${port}/`,
      pageBuilt: existsSync(join(assetsDir, 'main.js')),
      port,
      token: playground.token,
      loaded,
      karmada,
      async close() {
        await playground.app.close();
        await loaded.close();
      },
    };
  } catch (error) {
    await loaded.close();
    throw error;
  }
}
