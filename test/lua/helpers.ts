import type { KObject } from '../../src/interpreter/types.ts';

/** A real-shaped Deployment-like object used as the Lua functions' input. */
export function workload(overrides: KObject = {}): KObject {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: 'sample', namespace: 'default', labels: { app: 'sample' }, annotations: {} },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'sample' } },
      template: {
        metadata: { labels: { app: 'sample' } },
        spec: {
          containers: [{ name: 'nginx', image: 'nginx:1.25', resources: { requests: { cpu: '250m', memory: '64Mi' } } }],
          tolerations: [],
        },
      },
      updateStrategy: {},
    },
    status: { replicas: 3, readyReplicas: 2, conditions: [] },
    ...overrides,
  };
}

/** Runs `body` as the body of a ReflectStatus function and returns the reflected value (a JSON object). */
export function reflectScript(body: string): string {
  return `function ReflectStatus(observedObj)\n${body}\nend`;
}
