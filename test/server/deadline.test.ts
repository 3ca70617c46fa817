import { describe, expect, it } from 'vitest';
import { answerWithinMs, parseGoDuration } from '../../src/server/deadline.ts';

describe("Karmada's ?timeout= (Go durations)", () => {
  it.each([
    ['30s', 30000],
    ['1m0s', 60000],
    ['500ms', 500],
    ['1.5s', 1500],
    ['1h2m3s', 3723000],
    ['250us', 0.25],
  ])('%s = %d ms', (text, ms) => expect(parseGoDuration(text)).toBeCloseTo(ms));
  it.each(['', '30', 's', '1x', '-1s'])('%j is not a duration', (text) => expect(parseGoDuration(text)).toBeUndefined());
  it('answers before the caller gives up, within our own cap', () => {
    expect(answerWithinMs('3s', 25000)).toBe(2700);
    expect(answerWithinMs('30s', 25000)).toBe(25000);
    expect(answerWithinMs(undefined, 25000)).toBe(25000);
    expect(answerWithinMs('10ms', 25000)).toBe(50);
  });
});
