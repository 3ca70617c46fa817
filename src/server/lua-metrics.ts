// Lua-side metrics, read from the runtime and the customization loader when Prometheus scrapes.
// Per-call counts and durations of Lua scripts are the request metrics with source="lua".
import { Counter, Gauge } from 'prom-client';
import type { LoadedRegistry } from '../interpreter/setup.ts';
import { METRIC_PREFIX, type Metrics } from './metrics.ts';

export class LuaMetrics {
  readonly reloads: Counter<'result'>;
  private readonly loadErrors: Gauge;

  constructor(metrics: Metrics, loaded: LoadedRegistry) {
    const registers = [metrics.registry];
    const stats = () => loaded.runtime.stats();
    const runtimeGauges: Array<[string, string, (s: ReturnType<typeof stats>) => number]> = [
      ['lua_compile_cache_hits', 'Lua script compilations served from the cache since start.', (s) => s.cacheHits],
      ['lua_compile_cache_misses', 'Lua script compilations that missed the cache since start.', (s) => s.cacheMisses],
      ['lua_pool_idle_states', 'Idle Lua states kept for reuse.', (s) => s.poolSize],
      ['lua_states_in_use', 'Lua states running a script now.', (s) => s.statesInUse],
    ];
    for (const [name, help, pick] of runtimeGauges) {
      new Gauge({
        name: `${METRIC_PREFIX}${name}`,
        help,
        registers,
        collect() {
          this.set(pick(stats()));
        },
      });
    }
    new Gauge({
      name: `${METRIC_PREFIX}lua_customization_targets`,
      help: 'Kinds served by Lua customizations, by origin.',
      labelNames: ['origin'] as const,
      registers,
      collect() {
        this.set({ origin: 'builtin' }, loaded.builtinLua.summary.targets);
        this.set({ origin: 'user' }, loaded.userLua?.summary.targets ?? 0);
      },
    });
    this.loadErrors = new Gauge({
      name: `${METRIC_PREFIX}lua_customization_load_errors`,
      help: 'Problems in the last load of customization files (a broken file is not used).',
      registers,
    });
    this.loadErrors.set(loaded.problems.length);
    this.reloads = new Counter({
      name: `${METRIC_PREFIX}lua_customization_reloads_total`,
      help: 'Reloads of user customizations: applied, or rejected (the last good set keeps serving).',
      labelNames: ['result'] as const,
      registers,
    });
  }

  recordReload(applied: boolean, errors: number): void {
    this.reloads.inc({ result: applied ? 'applied' : 'rejected' });
    this.loadErrors.set(errors);
  }
}
