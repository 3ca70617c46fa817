// What /readyz says about the user's customizations (src/customizations/status.ts): a file broken at
// start keeps the server unready, naming the file and the problem, unless --serve-with-broken-customizations;
// a rejected reload keeps the server ready and names the files serving their last good copy.
import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../src/customizations/loader.ts';
import { CustomizationReport } from '../../src/customizations/status.ts';

const problem = (file: string, message = 'document 1 (widget): healthInterpretation (InterpretHealth): script line 2: unexpected symbol near end') => ({
  file,
  message,
});
const set = (files: string[], errors: Array<{ file: string; message: string }> = []) => ({ files, errors }) as unknown as LoadResult;

describe('CustomizationReport', () => {
  it('is ready with every file loaded', () => {
    expect(new CustomizationReport(false).start([])).toEqual({ ok: true, detail: 'all customization files loaded', lastGood: [] });
  });

  it('keeps the server unready when a file fails to load at start, naming the file and why', () => {
    const status = new CustomizationReport(false).start([problem('/c/widget.yaml'), problem('/c/widget.yaml', 'document 2: no spec')]);
    expect(status.ok).toBe(false);
    expect(status.detail).toBe(
      '/c/widget.yaml failed to load, not served: document 1 (widget): healthInterpretation (InterpretHealth): script line 2: unexpected symbol near end (and 1 more); ' +
        'unready until it loads (--serve-with-broken-customizations serves the other files)',
    );
    expect(status.lastGood).toEqual([]);
  });

  it('clips a long problem to 200 characters', () => {
    const status = new CustomizationReport(false).start([problem('/c/a.yaml', 'x'.repeat(1000))]);
    expect(status.detail).toContain(`/c/a.yaml failed to load, not served: ${'x'.repeat(199)}…;`);
  });

  it('is ready with a broken file at start under --serve-with-broken-customizations, still naming it', () => {
    const status = new CustomizationReport(true).start([problem('/c/widget.yaml')]);
    expect(status.ok).toBe(true);
    expect(status.detail).toMatch(
      /^\/c\/widget\.yaml failed to load, not served: document 1 \(widget\).*; the other files serve \(--serve-with-broken-customizations\)$/,
    );
  });

  it('stays ready after a rejected reload, naming the files serving their last good copy', () => {
    const report = new CustomizationReport(false);
    expect(report.start([]).ok).toBe(true);
    const serving = set(['/c/a.yaml', '/c/widget.yaml']);
    const status = report.reload({ errors: [problem('/c/widget.yaml'), problem('/c/new.yaml', 'document 1: not YAML')] }, false, serving);
    expect(status.ok).toBe(true);
    expect(status.detail).toBe(
      'serving the last good copy of /c/widget.yaml; reload failed: document 1 (widget): healthInterpretation (InterpretHealth): script line 2: unexpected symbol near end; ' +
        '/c/new.yaml not served (no good copy of it has loaded); reload failed: document 1: not YAML; the rest of this reload waits until every file loads',
    );
    expect(status.detail).not.toMatch(/not used/);
    expect(status.lastGood).toEqual(['/c/widget.yaml']);
    // Fixed: all loaded, nothing serves from a last good copy.
    expect(report.reload({ errors: [] }, true, serving)).toEqual({ ok: true, detail: 'all customization files loaded', lastGood: [] });
  });

  it('stays unready while a file broken at start has not loaded, and is ready once a reload applies', () => {
    const report = new CustomizationReport(false);
    const start = set(['/c/a.yaml', '/c/widget.yaml'], [problem('/c/widget.yaml')]);
    expect(report.start(start.errors).ok).toBe(false);
    // Still broken, and another file broken too: nothing serves from a good copy of widget.yaml.
    const still = report.reload({ errors: [problem('/c/widget.yaml'), problem('/c/a.yaml')] }, false, start);
    expect(still.ok).toBe(false);
    expect(still.detail).toContain('/c/widget.yaml not served (no good copy of it has loaded); reload failed: ');
    expect(still.detail).toContain('serving the last good copy of /c/a.yaml; reload failed: ');
    expect(still.detail).toMatch(/unready until the files broken at start load$/);
    expect(still.lastGood).toEqual(['/c/a.yaml']);
    expect(report.reload({ errors: [] }, true, set(['/c/a.yaml', '/c/widget.yaml'])).ok).toBe(true);
    // From then on a rejected reload leaves it ready.
    expect(report.reload({ errors: [problem('/c/widget.yaml')] }, false, set(['/c/a.yaml', '/c/widget.yaml'])).ok).toBe(true);
  });
});
