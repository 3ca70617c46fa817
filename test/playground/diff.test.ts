// The page's line diff (web/playground/diff.ts): what the revised, retained and aggregated cards show.
import { describe, expect, it } from 'vitest';
import { lineDiff } from '../../web/playground/diff.ts';

const render = (before: string, after: string) => lineDiff(before, after).map((line) => `${line.kind}${line.text}`);

describe('lineDiff', () => {
  it('keeps common lines and marks removed then added ones', () => {
    expect(render('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual([' a', '-b', '+B', ' c', '+d']);
  });

  it('is all context for equal texts and all additions from nothing', () => {
    expect(render('x: 1\n', 'x: 1\n')).toEqual([' x: 1']);
    expect(render('', 'x: 1')).toEqual(['+x: 1']);
  });

  it('shows both texts whole past its size limit instead of spending quadratic time', () => {
    const big = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n');
    const lines = lineDiff(big, `${big}\nmore`);
    expect(lines.filter((line) => line.kind === '-')).toHaveLength(2000);
    expect(lines.filter((line) => line.kind === '+')).toHaveLength(2001);
  });
});
