// The playground in a real browser (Debian's chromium through playwright-core; .ci/run installs it): the
// page loads offline with no console error, a CloneSet turns unhealthy when its member loses its
// available pods, a Lua syntax error is marked at its file line, an exported case passes
// `karmada-interpreter test`, and cross-origin posts and foreign Hosts are refused.
// A screenshot of the main view goes to tmp/playground-browser/ (PLAYGROUND_SCREENSHOT_DIR) for review.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlaygroundAssets } from '../../web/playground/build.ts';
import { startPlayground, type RunningPlayground } from '../../src/playground/start.ts';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const ROOT = resolve(import.meta.dirname, '..', '..');
const SCREENSHOTS = resolve(process.env.PLAYGROUND_SCREENSHOT_DIR ?? join(ROOT, 'tmp', 'playground-browser'));
const NODE = process.execPath;
/** The page's transfer budget (docs/playground.md): its HTML, script and stylesheet as sent (gzip). */
const PAGE_BUDGET_BYTES = 200 * 1024;

if (!CHROMIUM) {
  console.warn('playground-browser: SKIPPED: no chromium at /usr/bin/chromium (apt-get install chromium; .ci/run installs it)');
}

describe.skipIf(!CHROMIUM)('playground in chromium', () => {
  let scratch: string;
  let playground: RunningPlayground;
  let browser: Browser;
  let page: Page;
  let attacker: Server;
  let attackerUrl: string;
  const consoleErrors: string[] = [];
  const foreignRequests: string[] = [];
  const transfers: Array<Promise<{ type: string; bytes: number }>> = [];

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'playground-browser-'));
    const assetsDir = join(scratch, 'assets');
    await buildPlaygroundAssets(ROOT, assetsDir);
    playground = await startPlayground({ port: 0, assetsDir });
    // A page of another origin that tries to drive the playground.
    attacker = createServer((_req, res) => res.setHeader('content-type', 'text/html').end('<!doctype html><title>elsewhere</title>'));
    await new Promise<void>((done) => attacker.listen(0, '127.0.0.1', done));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as { port: number }).port}/`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // evil.test resolves to the playground's address, as a DNS-rebinding attacker's name would.
      args: ['--no-sandbox', '--host-resolver-rules=MAP evil.test 127.0.0.1'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    page.on('requestfinished', (req) => {
      transfers.push(req.sizes().then((sizes) => ({ type: req.resourceType(), bytes: sizes.responseBodySize + sizes.responseHeadersSize })));
    });
    page.on('request', (req) => {
      if (!req.url().startsWith(playground.url) && !req.url().startsWith('blob:')) foreignRequests.push(req.url());
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await playground?.close();
    await new Promise((done) => attacker?.close(done));
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const card = (operation: string) => page.locator(`[data-operation="${operation}"]`);
  const editor = (label: string) => page.locator(`.cm-content[aria-label="${label}"]`);

  /** Replaces an editor's text the way a user does: select all, then type (insertText, as a paste). */
  async function replaceText(label: string, text: string): Promise<void> {
    await editor(label).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(text);
  }

  it('loads with no console error and no request to another origin; every operation answers for the first kind', async () => {
    await page.goto(playground.url);
    await expect.poll(() => card('InterpretHealth').getAttribute('data-state'), { timeout: 30_000 }).toBe('ok');
    await expect.poll(() => card('InterpretHealth').innerText()).toContain('healthy: true');
    expect(await card('InterpretReplica').innerText()).toContain('answered by the TypeScript module');
    expect(await card('InterpretReplica').innerText()).toMatch(/\d+(\.\d+)? ms/);
    // Labelled controls: every select, input and button has an accessible name.
    for (const control of await page.locator('select, input:not([type=file]), button').all()) {
      const name = await control.evaluate(
        (el) => (el as HTMLElement).getAttribute('aria-label') || (el.id && document.querySelector(`label[for="${el.id}"]`)?.textContent) || el.textContent,
      );
      expect(name?.trim(), await control.evaluate((el) => el.outerHTML.slice(0, 80))).toBeTruthy();
    }
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'main.png') });
    console.log(`playground-browser: screenshot of the main view: ${join(SCREENSHOTS, 'main.png')}`);
    expect(consoleErrors).toEqual([]);
    expect(foreignRequests).toEqual([]);
    const pageBytes = (await Promise.all(transfers)).filter((t) => ['document', 'script', 'stylesheet'].includes(t.type)).reduce((sum, t) => sum + t.bytes, 0);
    console.log(`playground-browser: the page transferred ${pageBytes} bytes (budget ${PAGE_BUDGET_BYTES})`);
    expect(pageBytes).toBeGreaterThan(10_000);
    expect(pageBytes).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
  });

  it('turns a CloneSet unhealthy when a member status loses its available pods', async () => {
    const member = await editor('Member-cluster object').innerText();
    expect(member).toMatch(/availableReplicas: [1-9]/);
    await replaceText(
      'Member-cluster object',
      member.replace(/availableReplicas: \d+/, 'availableReplicas: 0').replace(/readyReplicas: \d+/, 'readyReplicas: 0'),
    );
    await expect.poll(() => card('InterpretHealth').innerText(), { timeout: 15_000 }).toContain('healthy: false');
    await replaceText('Member-cluster object', member);
    await expect.poll(() => card('InterpretHealth').innerText(), { timeout: 15_000 }).toContain('healthy: true');
  });

  it('adds, duplicates and removes status items from the keyboard, and the aggregated status follows', async () => {
    const items = page.locator('.cm-content[aria-label^="Status item"]');
    const before = await items.count();
    await expect.poll(() => card('AggregateStatus').innerText()).toContain('answered by');
    await page.getByRole('button', { name: 'Add member cluster' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => items.count()).toBe(before + 1);
    await page.getByRole('button', { name: `Duplicate status item ${before + 1}` }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => items.count()).toBe(before + 2);
    expect(await items.nth(before + 1).innerText()).toContain(`clusterName: member${before + 1}`);
    await page.getByRole('button', { name: `Remove status item ${before + 2}` }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: `Remove status item ${before + 1}` }).click();
    await expect.poll(() => items.count()).toBe(before);
    // A status item that is not YAML is marked in its own editor and AggregateStatus waits for it.
    await replaceText(`Status item ${before}`, 'clusterName: [broken');
    await expect.poll(() => card('AggregateStatus').innerText(), { timeout: 15_000 }).toContain('needs valid status items');
    await page.keyboard.press('Control+Z');
    await expect.poll(() => card('AggregateStatus').getAttribute('data-state'), { timeout: 15_000 }).toBe('ok');
  });

  it('marks a Lua syntax error at its line of the customization file', async () => {
    await page.getByRole('button', { name: 'New for this kind' }).click();
    await expect.poll(() => card('InterpretHealth').innerText(), { timeout: 15_000 }).toContain('answered by your customization');
    const text = await editor('Customization').innerText();
    const lines = text.split('\n');
    const at = lines.findIndex((line) => line.includes('if observedObj.status == nil then'));
    expect(at).toBeGreaterThan(0);
    lines[at] = lines[at]!.replace('if observedObj.status == nil then', 'if observedObj.status == == nil then');
    await replaceText('Customization', lines.join('\n'));
    const marked = page.locator('.pg-error-line');
    await expect.poll(() => marked.count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await marked.first().getAttribute('data-error-line')).toBe(String(at + 1));
    expect(await marked.first().innerText()).toContain('== == nil');
    expect(await page.locator('#customization-problems').innerText()).toContain(`line ${at + 1}`);
    expect(await card('InterpretHealth').getAttribute('data-state')).toBe('error');
  });

  it('exports a test case that `karmada-interpreter test` passes', async () => {
    // A working customization whose health answer differs from the built-in module's.
    const text = (await editor('Customization').innerText())
      .replace('if observedObj.status == == nil then', 'if observedObj.status == nil then')
      .replace('>= (observedObj.spec.replicas or 1)', '>= 1000');
    await replaceText('Customization', text);
    await expect.poll(() => page.locator('.pg-error-line').count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => card('InterpretHealth').innerText(), { timeout: 15_000 }).toContain('healthy: false');
    await page.getByRole('button', { name: 'Export test case' }).click();
    const testdata = await page.locator('#export-testdata').inputValue();
    expect(testdata).toContain('operation: InterpretHealth');
    expect(await page.locator('#curl-text').inputValue()).toMatch(/^curl --cacert/);
    await page.keyboard.press('Escape');
    const dir = join(scratch, 'my-ric');
    await mkdir(join(dir, 'testdata'), { recursive: true });
    await writeFile(join(dir, 'customizations.yaml'), await editor('Customization').innerText());
    await writeFile(join(dir, 'testdata', 'cloneset-test.yaml'), testdata);
    const run = spawnSync(NODE, [join(ROOT, 'src', 'cli.ts'), 'test', dir], { encoding: 'utf8', cwd: ROOT });
    expect(run.stdout).toMatch(/^\d+ passed, 0 failed$/m);
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });

  it('refuses a cross-origin post and a foreign Host', async () => {
    const other = await browser.newPage();
    const statuses: number[] = [];
    other.on('response', (response) => {
      if (response.url().startsWith(playground.url)) statuses.push(response.status());
    });
    await other.goto(attackerUrl);
    const target = `${playground.url}api/run`;
    // A "simple" cross-site POST (no preflight) and a form post: both arrive with the attacker's Origin.
    await other.evaluate((url) => fetch(url, { method: 'POST', mode: 'no-cors', body: '{"template":"kind: X"}' }).catch(() => undefined), target);
    await other.evaluate((url) => {
      const form = Object.assign(document.createElement('form'), { method: 'POST', action: url, enctype: 'text/plain' });
      document.body.append(form);
      form.submit();
    }, target);
    await other.waitForURL(target);
    expect(await other.locator('body').innerText()).toContain('refused: cross-origin request');
    expect(statuses).toEqual([403, 403]);
    // The same server reached through another name, as DNS rebinding would: refused, token not given away.
    const rebound = await other.goto(`http://evil.test:${playground.port}/`);
    expect(rebound?.status()).toBe(403);
    expect(await rebound?.text()).not.toContain(playground.token);
    // And from outside a browser, the raw requests.
    expect(await rawStatus({ host: `evil.test:${playground.port}` })).toBe(403);
    expect(await rawStatus({ host: `127.0.0.1:${playground.port}`, origin: 'http://evil.test', 'x-playground-token': playground.token }, 'POST')).toBe(403);
    expect(
      await rawStatus({ host: `127.0.0.1:${playground.port}`, origin: `http://127.0.0.1:${playground.port}`, 'x-playground-token': playground.token }, 'POST'),
    ).toBe(200);
    await other.close();
  });

  function rawStatus(headers: Record<string, string>, method = 'GET'): Promise<number> {
    return new Promise((done, fail) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: playground.port,
          path: method === 'GET' ? '/' : '/api/run',
          method,
          headers: { ...headers, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () => done(res.statusCode ?? 0));
        },
      );
      req.on('error', fail);
      req.end(method === 'GET' ? undefined : JSON.stringify({ template: 'apiVersion: v1\nkind: ConfigMap\n' }));
    });
  }
});
