// Replays every recorded exchange under test/fixtures/ with the `replay` machinery, so `npm test`
// judges them exactly as `karmada-interpreter replay test/fixtures` does (patches by the object they
// produce, quantities by value, dependencies as a set). A changed answer fails here with its
// differences; re-record deliberately with `npm run fixtures:update` and review the diff.
import { afterAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../src/interpreter/setup.ts';
import { formatDifference } from '../src/record/response-comparison.ts';
import { listExchangeFiles } from '../src/record/format.ts';
import { inProcessTarget, replayFile } from '../src/record/replay.ts';

const loaded = await createRegistry();
const target = inProcessTarget(loaded.registry);
const files = await listExchangeFiles(['test/fixtures']);
afterAll(() => loaded.close());

describe('recorded exchanges replay unchanged', () => {
  it('has fixtures to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });
  it.each(files)('%s', async (file) => {
    const result = await replayFile(file, target);
    expect(result.error, `${file} could not be replayed`).toBeUndefined();
    expect(
      result.differences.map((d) => formatDifference(d)),
      `${file} changed: run npm run fixtures:update if intended`,
    ).toEqual([]);
    expect(result.status).toBe('unchanged');
  });
});
