import { describe, expect, it } from 'vitest';
import { testApp } from '../support/app.ts';
import { workloadObject } from '../support/workload-module.ts';

const post = (app: ReturnType<typeof testApp>, payload: unknown) =>
  app.inject({
    method: 'POST',
    url: '/preserve',
    headers: { 'content-type': 'application/json' },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describe('POST /preserve', () => {
  const app = testApp();
  const observed = { ...workloadObject(), status: { readyReplicas: 1000000 } };

  it('evaluates rules against our reflected status and flags invalid label values', async () => {
    const reply = await post(app, {
      rules: [
        { aliasLabelName: 'example.io/ready', jsonPath: '{.readyReplicas}' },
        { aliasLabelName: 'example.io/gone', jsonPath: '{.replicas}' },
      ],
      observedObject: observed,
    });
    expect(reply.statusCode).toBe(200);
    const body = reply.json();
    // The test module reflects only readyReplicas: .replicas is missing, as Karmada would see it.
    expect(body.labels).toEqual({ 'example.io/ready': '1e+06' });
    expect(body.errors).toEqual([{ aliasLabelName: 'example.io/gone', message: expect.stringMatching(/replicas is not found/) }]);
    expect(body.warnings[0].aliasLabelName).toBe('example.io/ready');
  });

  it('uses the whole .status for kinds we do not interpret, like Karmada', async () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, status: { replicas: 2 } };
    const reply = await post(app, { rules: [{ aliasLabelName: 'r', jsonPath: '{.replicas}' }], observedObject: deployment });
    expect(reply.json().labels).toEqual({ r: '2' });
  });

  it('answers 400 for bad input', async () => {
    expect((await post(app, '{')).statusCode).toBe(400);
    expect((await post(app, { observedObject: observed })).statusCode).toBe(400);
    expect((await post(app, { rules: [], policy: {}, observedObject: observed })).statusCode).toBe(400);
  });
});
