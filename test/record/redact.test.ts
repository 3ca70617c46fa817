import { describe, expect, it } from 'vitest';
import { applyPatch, decodePatch, encodePatch } from '../../src/protocol/patch.ts';
import type { InterpreterContext } from '../../src/protocol/wire.ts';
import { REDACTED, isSecretAnnotation, redactExchange, redactValue } from '../../src/record/redact.ts';

const cloneSet = () => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: {
    name: 'web',
    namespace: 'shop',
    annotations: {
      'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"apps.kruise.io/v1alpha1","spec":{"env":"DB_PASSWORD=hunter2"}}',
      'example.com/api-token': 'tkn-123',
      'deployment.kubernetes.io/revision': '7',
      'resourcetemplate.karmada.io/generation': '4',
    },
  },
  spec: {
    replicas: 3,
    template: {
      metadata: { labels: { app: 'web' }, annotations: { 'vault.hashicorp.com/agent-inject-secret-db': 'database/creds/web', 'prometheus.io/port': '9090' } },
      spec: {
        initContainers: [{ name: 'migrate', image: 'web:1', env: [{ name: 'DB_URL', value: 'postgres://web:hunter2@db/web' }] }],
        containers: [
          {
            name: 'web',
            image: 'web:1',
            env: [
              { name: 'DB_PASSWORD', value: 'hunter2' },
              { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
              { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'web-token', key: 'token' } } },
            ],
          },
        ],
      },
    },
  },
});

describe('isSecretAnnotation', () => {
  it.each([
    'kubectl.kubernetes.io/last-applied-configuration',
    'example.com/api-token',
    'example.com/db-password',
    'vault.hashicorp.com/agent-inject-secret-db',
    'example.com/apiKey',
    'example.com/ssh_private_key',
    'example.com/credentials',
    'TOKEN',
  ])('%s looks like a secret', (key) => expect(isSecretAnnotation(key)).toBe(true));

  it.each([
    'deployment.kubernetes.io/revision',
    'resourcetemplate.karmada.io/generation',
    'example.com/monkey',
    'example.com/tokenizer-model',
    'prometheus.io/port',
    'kubectl.kubernetes.io/restartedAt',
  ])('%s does not', (key) => expect(isSecretAnnotation(key)).toBe(false));
});

describe('redactValue', () => {
  it('replaces env values in containers and init containers, keeps names and valueFrom references', () => {
    const pointers: string[] = [];
    const out = redactValue(cloneSet(), pointers);
    const spec = out.spec.template.spec;
    expect(spec.containers[0]!.env).toEqual([
      { name: 'DB_PASSWORD', value: REDACTED },
      { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'web-token', key: 'token' } } },
    ]);
    expect(spec.initContainers[0]!.env).toEqual([{ name: 'DB_URL', value: REDACTED }]);
    expect(pointers).toContain('/spec/template/spec/containers/0/env/0/value');
    expect(pointers).toContain('/spec/template/spec/initContainers/0/env/0/value');
  });

  it('replaces env values in any pod-template-like place (an Argo Workflow template container)', () => {
    const workflow = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Workflow',
      spec: { templates: [{ name: 'main', container: { image: 'alpine', env: [{ name: 'S3_KEY', value: 'AKIA123' }] } }] },
    };
    expect(redactValue(workflow).spec.templates[0]!.container.env[0]).toEqual({ name: 'S3_KEY', value: REDACTED });
  });

  it('replaces secret-like and last-applied annotations on objects and pod templates, and nothing else', () => {
    const pointers: string[] = [];
    const out = redactValue(cloneSet(), pointers);
    expect(out.metadata.annotations).toEqual({
      'kubectl.kubernetes.io/last-applied-configuration': REDACTED,
      'example.com/api-token': REDACTED,
      'deployment.kubernetes.io/revision': '7',
      'resourcetemplate.karmada.io/generation': '4',
    });
    expect(out.spec.template.metadata.annotations).toEqual({ 'vault.hashicorp.com/agent-inject-secret-db': REDACTED, 'prometheus.io/port': '9090' });
    expect(pointers).toContain('/metadata/annotations/example.com~1api-token');
    expect(out.metadata.name).toBe('web');
    expect(out.spec.replicas).toBe(3);
  });

  it('replaces every value of data and stringData in Secret-shaped objects, wherever they are, keeping the keys', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      type: 'Opaque',
      data: { password: 'aHVudGVyMg==' },
      stringData: { user: 'web' },
    };
    const list = { apiVersion: 'v1', kind: 'List', items: [secret, { apiVersion: 'v1', kind: 'ConfigMap', data: { password: 'not-a-secret-object' } }] };
    const out = redactValue(list);
    expect(out.items[0]).toEqual({ ...secret, data: { password: REDACTED }, stringData: { user: REDACTED } });
    expect(out.items[1]).toEqual(list.items[1]);
  });

  it('does not change its input', () => {
    const input = cloneSet();
    const before = structuredClone(input);
    redactValue(input);
    expect(input).toEqual(before);
  });
});

describe('redactExchange', () => {
  const envelope = (operation: string, object: object, extra: object = {}): InterpreterContext => ({
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterContext',
    request: {
      uid: 'u1',
      kind: { group: 'apps.kruise.io', version: 'v1alpha1', kind: 'CloneSet' },
      name: 'web',
      namespace: 'shop',
      operation,
      object: object as never,
      replicas: 0,
      ...extra,
    },
  });

  it('redacts the request, observedObject and aggregated statuses, and lists every pointer', () => {
    const observed = cloneSet();
    const recorded = redactExchange({
      request: envelope('Retain', cloneSet(), { observedObject: observed }),
      response: { apiVersion: 'config.karmada.io/v1alpha1', kind: 'ResourceInterpreterContext', response: { uid: 'u1', successful: true } },
    });
    expect(JSON.stringify(recorded)).not.toContain('hunter2');
    expect(JSON.stringify(recorded)).not.toContain('tkn-123');
    expect(recorded.redacted).toContain('/request/request/object/spec/template/spec/containers/0/env/0/value');
    expect(recorded.redacted).toContain('/request/request/observedObject/metadata/annotations/example.com~1api-token');
  });

  it('re-encodes a patch against the redacted object so it carries no secret and applies to the recorded request', () => {
    // A Retain that copies the member's env value into the template: the patch carries the value.
    const object = cloneSet();
    const ops = [
      { op: 'replace' as const, path: '/spec/template/spec/containers/0/env/0/value', value: 'member-secret' },
      { op: 'replace' as const, path: '/spec/replicas', value: 5 },
    ];
    const recorded = redactExchange({
      request: envelope('Retain', object, { observedObject: cloneSet() }),
      response: {
        apiVersion: 'config.karmada.io/v1alpha1',
        kind: 'ResourceInterpreterContext',
        response: { uid: 'u1', successful: true, patchType: 'JSONPatch', patch: encodePatch(ops) },
      },
    });
    const patch = recorded.response!.response!.patch!;
    expect(Buffer.from(patch, 'base64').toString()).not.toContain('member-secret');
    const result = applyPatch(recorded.request.request!.object, decodePatch(patch)) as ReturnType<typeof cloneSet>;
    expect(result.spec.replicas).toBe(5);
    expect(result.spec.template.spec.containers[0]!.env[0]).toEqual({ name: 'DB_PASSWORD', value: REDACTED });
  });

  it('drops the patch when the only change was to a redacted value', () => {
    const ops = [{ op: 'replace' as const, path: '/spec/template/spec/containers/0/env/0/value', value: 'other' }];
    const recorded = redactExchange({
      request: envelope('Retain', cloneSet(), { observedObject: cloneSet() }),
      response: {
        apiVersion: 'config.karmada.io/v1alpha1',
        kind: 'ResourceInterpreterContext',
        response: { uid: 'u1', successful: true, patchType: 'JSONPatch', patch: encodePatch(ops) },
      },
    });
    expect(recorded.response!.response).toEqual({ uid: 'u1', successful: true });
  });

  it('redacts rawStatus by the same rules', () => {
    const recorded = redactExchange({
      request: envelope('InterpretStatus', cloneSet()),
      response: {
        apiVersion: 'config.karmada.io/v1alpha1',
        kind: 'ResourceInterpreterContext',
        response: { uid: 'u1', successful: true, rawStatus: { template: { env: [{ name: 'A', value: 'secret-a' }] } } },
      },
    });
    expect(recorded.response!.response!.rawStatus).toEqual({ template: { env: [{ name: 'A', value: REDACTED }] } });
    expect(recorded.redacted).toContain('/response/response/rawStatus/template/env/0/value');
  });

  it('leaves an exchange with nothing to redact as it was, without a redacted list', () => {
    const plain = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'web' }, spec: { replicas: 2 } };
    const exchange = { request: envelope('InterpretReplica', plain), response: null };
    expect(redactExchange(exchange)).toEqual(exchange);
  });
});

describe('hostile keys', () => {
  it('keeps a "__proto__" key as an ordinary key and does not touch prototypes', () => {
    const object = JSON.parse(
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","annotations":{"__proto__":{"polluted":true},"a-token":"t"}},"data":{"__proto__":{"polluted":true}}}',
    );
    const out = redactValue(object);
    expect(JSON.stringify(out)).toBe(
      `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","annotations":{"__proto__":{"polluted":true},"a-token":"${REDACTED}"}},"data":{"__proto__":{"polluted":true}}}`,
    );
    expect(Object.prototype.hasOwnProperty.call(out.data, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
