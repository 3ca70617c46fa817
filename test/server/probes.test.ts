import { describe, expect, it, vi } from 'vitest';
import { Registry } from '../../src/interpreter/registry.ts';
import type { KindInterpreter } from '../../src/interpreter/types.ts';
import { buildApp } from '../../src/server/app.ts';
import { Readiness } from '../../src/server/readiness.ts';
import { silentLogger, testApp } from '../support/app.ts';
import { karmadaRequest, workloadObject } from '../support/workload-module.ts';

describe('probes and metrics', () => {
  it('/healthz is up; /readyz follows the readiness checks with details', async () => {
    const readiness = new Readiness();
    readiness.set('tls', false, 'not serving yet');
    const app = testApp({ readiness });
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    const notReady = await app.inject('/readyz');
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json().checks.tls).toEqual({ ok: false, detail: 'not serving yet' });
    readiness.set('tls', true);
    expect((await app.inject('/readyz')).statusCode).toBe(200);
  });

  it('/metrics counts requests by kind, operation and code, with bounded labels', async () => {
    const app = testApp();
    const send = (payload: unknown) =>
      app.inject({ method: 'POST', url: '/interpret', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    await send(karmadaRequest('InterpretReplica', workloadObject()));
    await send(karmadaRequest('InterpretComponent', workloadObject()));
    await send(karmadaRequest('InterpretReplica', { ...workloadObject(), apiVersion: 'random.io/v1', kind: 'Random123' }));
    const text = (await app.inject('/metrics')).body;
    expect(text).toMatch(
      /karmada_interpreter_requests_total\{kind="workload.example.io\/v1alpha1\/Workload",operation="InterpretReplica",source="typescript",code="200"\} 1/,
    );
    expect(text).toMatch(
      /karmada_interpreter_requests_total\{kind="workload.example.io\/v1alpha1\/Workload",operation="InterpretComponent",source="none",code="501"\} 1/,
    );
    expect(text).toMatch(/karmada_interpreter_requests_total\{kind="other",operation="InterpretReplica",source="none",code="404"\} 1/);
    expect(text).not.toMatch(/Random123/);
    expect(text).toMatch(/karmada_interpreter_request_duration_seconds_bucket/);
    expect(text).toMatch(/karmada_interpreter_requests_in_flight 0/);
    expect(text).toMatch(/process_resident_memory_bytes/);
  });

  it('/metrics shows the requests in flight at scrape time', async () => {
    let finish!: () => void;
    const slow: KindInterpreter = {
      targets: [{ apiVersion: 'workload.example.io/v1alpha1', kind: 'Workload' }],
      getReplicas: () => new Promise((resolve) => (finish = () => resolve({ replicas: 1 }))),
    };
    const app = buildApp({ registry: new Registry({ 'builtin-ts': [slow] }), logger: silentLogger });
    const pending = app.inject({
      method: 'POST',
      url: '/interpret',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(karmadaRequest('InterpretReplica', workloadObject())),
    });
    await vi.waitFor(() => expect(finish).toBeTypeOf('function'));
    expect((await app.inject('/metrics')).body).toMatch(/karmada_interpreter_requests_in_flight 1/);
    finish();
    expect((await pending).json().response.replicas).toBe(1);
    expect((await app.inject('/metrics')).body).toMatch(/karmada_interpreter_requests_in_flight 0/);
  });
});
