// --metrics-bind-address: /metrics, /healthz and /readyz over plain HTTP beside the webhook's TLS, for a
// Prometheus that does not speak the webhook's TLS; the build-info gauge names version and Node.js; its
// connections are bounded like the webhook's (decision 0009).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { serveConfig } from '../../src/config.ts';
import { serverVersion } from '../../src/record/server-version.ts';
import { generateSelfSigned } from '../../src/server/certificates.ts';
import { startServing } from '../../src/server/start.ts';

describe('the plain-HTTP metrics listener', () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  /** serve's arguments with a fresh certificate folder, the webhook on a free port, logs off. */
  async function baseArgs(): Promise<string[]> {
    const dir = await mkdtemp(join(tmpdir(), 'kiw-metrics-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const pair = await generateSelfSigned();
    await writeFile(join(dir, 'tls.crt'), pair.certPem);
    await writeFile(join(dir, 'tls.key'), pair.keyPem);
    return ['--cert-dir', dir, '--port', '0', '--host', '127.0.0.1', '--log-level', 'silent'];
  }

  it('serves /metrics (with build info), /healthz and /readyz without TLS; off unless asked for', async () => {
    const base = await baseArgs();

    const server = await startServing(serveConfig([...base, '--metrics-bind-address', '127.0.0.1:0'], {}));
    cleanup.push(server.close);
    expect(server.metricsPort).toBeGreaterThan(0);
    const metrics = await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toContain(`karmada_interpreter_build_info{version="${serverVersion()}",node="${process.version}"} 1`);
    expect(text).toMatch(/^# TYPE karmada_interpreter_lua_compile_cache_total counter$/m);
    // Exported at 0 from the start (test/server/metrics.test.ts), for the served kinds too.
    expect(text).toContain('karmada_interpreter_lua_timeouts_total{kind="apps.kruise.io/v1alpha1/CloneSet",operation="InterpretHealth"} 0\n');
    expect((await fetch(`http://127.0.0.1:${server.metricsPort}/healthz`)).status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${server.metricsPort}/readyz`);
    expect([200, 503]).toContain(ready.status);
    expect(await ready.json()).toMatchObject({ checks: { tls: { ok: true } } });
    // The interpreter endpoint is not on this listener.
    expect((await fetch(`http://127.0.0.1:${server.metricsPort}/interpret`, { method: 'POST', body: '{}' })).status).toBe(404);

    const without = await startServing(serveConfig(base, {}));
    cleanup.push(without.close);
    expect(without.metricsPort).toBeUndefined();
  });

  it('closes connections past its bound of 64 as they arrive, and counts them by listener', async () => {
    const server = await startServing(serveConfig([...(await baseArgs()), '--metrics-bind-address', '127.0.0.1:0'], {}));
    cleanup.push(server.close);
    let closedByServer = 0;
    const sockets = await Promise.all(
      Array.from(
        { length: 70 },
        () =>
          new Promise<Socket>((resolve) => {
            const socket = connect(server.metricsPort!, '127.0.0.1', () => resolve(socket));
            socket.on('error', () => undefined);
            socket.on('close', () => closedByServer++);
          }),
      ),
    );
    await vi.waitFor(() => expect(closedByServer).toBe(6));
    for (const socket of sockets) socket.destroy();
    await vi.waitFor(async () => {
      const text = await (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text();
      // The 6 past the bound, and any of these scrapes that came while the 64 were still open.
      expect(Number(/^karmada_interpreter_connections_dropped_total\{listener="metrics"\} (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(6);
      expect(text).toMatch(/^karmada_interpreter_connections_open\{listener="webhook"\} 0$/m);
    });
  });

  it.each([
    [':8080', { host: '0.0.0.0', port: 8080 }],
    ['127.0.0.1:9090', { host: '127.0.0.1', port: 9090 }],
    ['[::1]:9090', { host: '::1', port: 9090 }],
  ])('parses %s', (flag, expected) => {
    expect(serveConfig(['--metrics-bind-address', flag], {}).metricsBindAddress).toEqual(expected);
  });

  it.each(['0', ''])('treats %j as off, as controller-runtime does', (flag) => {
    expect(serveConfig(['--metrics-bind-address', flag], {}).metricsBindAddress).toBeUndefined();
  });

  it('refuses an address without a port, naming the flag', () => {
    expect(() => serveConfig(['--metrics-bind-address', 'localhost'], {})).toThrow(/--metrics-bind-address: "localhost" is not HOST:PORT or :PORT/);
  });
});
