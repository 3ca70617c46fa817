// The per-state compiled-chunk cache is bounded and drops the least recently used chunk.
import { describe, expect, it } from 'vitest';
import { LuaRuntime } from '../../src/lua/runtime.ts';
import { MAX_CHUNKS_PER_STATE } from '../../src/lua/state.ts';

const script = (i: number) => `function InterpretHealth(o) return ${i} >= 0 end`;
const obj = { apiVersion: 'v1', kind: 'X' };

describe('compiled-chunk cache', () => {
  it(`keeps at most ${MAX_CHUNKS_PER_STATE} chunks per state, evicting the least recently used`, async () => {
    const rt = new LuaRuntime({ poolSize: 1 });
    try {
      await rt.call('InterpretHealth', script(0), [obj]); // the hot script
      for (let i = 1; i <= MAX_CHUNKS_PER_STATE + 10; i++) {
        await rt.call('InterpretHealth', script(i), [obj]);
        await rt.call('InterpretHealth', script(0), [obj]); // used all along: never evicted
      }
      const before = rt.stats();
      expect(before.cacheMisses).toBe(MAX_CHUNKS_PER_STATE + 11);
      await rt.call('InterpretHealth', script(0), [obj]);
      await rt.call('InterpretHealth', script(MAX_CHUNKS_PER_STATE + 10), [obj]); // recent: still there
      expect(rt.stats().cacheMisses).toBe(before.cacheMisses);
      await rt.call('InterpretHealth', script(1), [obj]); // least recently used: evicted
      expect(rt.stats().cacheMisses).toBe(before.cacheMisses + 1);
    } finally {
      rt.close();
    }
  });
});
