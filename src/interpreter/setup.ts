// Builds the registry the server and the CLI share: built-in TypeScript modules, the Lua examples we
// ship (interpreters/**/customizations.yaml, only those enabled with --examples) and the user's
// --customizations folders, with Karmada-like precedence: user Lua > built-in TypeScript > built-in Lua.
import { builtinInterpreters } from '../../interpreters/index.ts';
import { UntrustedWork, type UntrustedWorkOptions } from '../isolation/untrusted-work.ts';
import { selectExamples, shippedExamples, type ShippedExample } from '../customizations/examples.ts';
import { loadBuiltinCustomizations, loadCustomizations, type LoadProblem, type LoadResult } from '../customizations/loader.ts';
import { watchCustomizations, type CustomizationWatch } from '../customizations/watch.ts';
import type { RequestContext } from './context.ts';
import { Registry } from './registry.ts';

export interface RegistryOptions {
  customizations?: string[];
  /**
   * The shipped Lua examples to serve: `--examples` values (`all`, or kinds such as `Rollout` or
   * `ScaledObject.keda.sh`), or 'all'. None by default. A name matching no example throws KindSelectorError.
   */
  examples?: 'all' | readonly string[];
  luaTimeoutMs?: number;
  /** Worker threads and limits for Lua customizations and state-preservation JSONPath. */
  untrustedWork?: Omit<UntrustedWorkOptions, 'luaTimeoutMs'>;
  /** Reload user customizations when their files change (the server; not the one-shot CLI). */
  watch?: boolean;
  /** Told about every reload of user customizations (the server logs, counts and reports it) and the set serving after it. */
  onReload?: (result: LoadResult, applied: boolean, serving: LoadResult | undefined) => void;
  /**
   * Customization files consulted last, after the built-in Lua: they answer only kinds, or operations
   * of a kind, that nothing else implements. `conformance` passes the `customizations.yaml` beside each
   * kind's `testdata/` in Karmada's tree, so what we have no interpreter for runs Karmada's own script
   * on our Lua runtime, as Karmada itself falls back to its built-in scripts.
   */
  fallbackCustomizations?: string[];
}

export interface LoadedRegistry {
  registry: Registry;
  /** Runs Lua customizations and state-preservation JSONPath on worker threads. */
  untrusted: UntrustedWork;
  /** Problems found while loading customizations (file and message), for logs and /readyz. */
  problems: LoadProblem[];
  /** What loaded with a remark: objects of other kinds skipped, scripts shadowed by another RIC. */
  warnings: LoadProblem[];
  /** The shipped examples being served. */
  examples: ShippedExample[];
  builtinLua: LoadResult;
  userLua?: LoadResult;
  fallbackLua?: LoadResult;
  close(): Promise<void>;
}

export async function createRegistry(options: RegistryOptions = {}): Promise<LoadedRegistry> {
  // Checked before any worker thread starts, so a wrong name leaves nothing to close.
  const examples = options.examples === 'all' ? shippedExamples() : selectExamples(options.examples ?? []);
  const untrusted = new UntrustedWork({ ...options.untrustedWork, luaTimeoutMs: options.luaTimeoutMs });
  const runtime = untrusted;
  const luaOptions = {
    runtime,
    // Customization files are read, parsed and compile-checked on a load worker with its own limits (decision 0014).
    offThread: true as const,
    timeoutMs: options.luaTimeoutMs,
    onPrint(line: string, source: { customization: string; functionName: string }, ctx: RequestContext | undefined) {
      ctx?.log?.debug({ uid: ctx.uid, customization: source.customization, function: source.functionName, print: line }, 'lua print');
    },
  };
  const builtinLua = await loadBuiltinCustomizations({ ...luaOptions, files: examples.map((example) => example.file) });
  const dirs = options.customizations ?? [];
  const userLua = dirs.length > 0 ? await loadCustomizations(dirs, luaOptions) : undefined;
  const fallbackLua = options.fallbackCustomizations?.length ? await loadCustomizations(options.fallbackCustomizations, luaOptions) : undefined;
  const registry = new Registry({
    'user-lua': userLua?.interpreters ?? [],
    'builtin-ts': builtinInterpreters,
    'builtin-lua': [...builtinLua.interpreters, ...(fallbackLua?.interpreters ?? [])],
  });
  registry.setFailed(userLua?.failed ?? []);
  const enabled = new Set(examples.map((example) => example.file));
  registry.setDisabledExamples(shippedExamples().filter((example) => !enabled.has(example.file)));
  let watch: CustomizationWatch | undefined;
  if (options.watch && dirs.length > 0) {
    watch = watchCustomizations(
      dirs,
      (result) => {
        // A broken edit must not take working customizations away: keep the last good set.
        const applied = result.errors.length === 0;
        if (applied) registry.setLayer('user-lua', result.interpreters);
        // Rejected or not, what failed now is what a call the good set cannot answer should hear about.
        registry.setFailed(result.failed);
        // What serves now: `result` when applied, else the last good set (or the start's, if none since).
        options.onReload?.(result, applied, applied ? result : (watch?.current() ?? userLua));
      },
      { ...luaOptions, initial: userLua },
    );
  }
  return {
    registry,
    untrusted,
    builtinLua,
    userLua,
    fallbackLua,
    problems: [...builtinLua.errors, ...(userLua?.errors ?? []), ...(fallbackLua?.errors ?? [])],
    warnings: [...builtinLua.warnings, ...(userLua?.warnings ?? []), ...(fallbackLua?.warnings ?? [])],
    examples,
    async close() {
      watch?.close();
      await untrusted.close();
    },
  };
}
