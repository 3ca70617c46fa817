// Workflow InterpretReplica edge cases: the envelope over templates, Argo's templateDefaults typing,
// pod-level resources, native sidecars, and the node claim built the way Argo builds pods.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getReplicas } from '../../interpreters/argoproj.io/v1alpha1/Workflow/requirements.ts';
import { InterpreterError } from '../../src/interpreter/types.ts';

function workflow(spec: Record<string, unknown>): Record<string, any> {
  return { apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', metadata: { name: 'w', namespace: 'ci' }, spec };
}
const cpu = (value: string) => ({ resources: { requests: { cpu: value } } });

describe('Workflow getReplicas', () => {
  it('is one replica without requirements for an empty workflow', () => {
    expect(getReplicas({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', metadata: { name: 'w' } })).toEqual({ replicas: 1 });
    expect(getReplicas(workflow({ parallelism: 10, templates: [] }))).toEqual({ replicas: 1 });
  });

  it('reports the per-resource maximum over templates, whatever their order', () => {
    const templateArbitrary = fc.record({ cpuMilli: fc.integer({ min: 1, max: 8000 }), memoryMi: fc.integer({ min: 1, max: 16384 }) });
    fc.assert(
      fc.property(fc.array(templateArbitrary, { minLength: 1, maxLength: 6 }), (sizes) => {
        const templates = sizes.map((size, index) => ({
          name: `t${index}`,
          container: { image: 'busybox', resources: { requests: { cpu: `${size.cpuMilli}m`, memory: `${size.memoryMi}Mi` } } },
        }));
        const forward = getReplicas(workflow({ templates }));
        const backward = getReplicas(workflow({ templates: [...templates].reverse() }));
        expect(backward).toEqual(forward);
        const maxCpu = Math.max(...sizes.map((size) => size.cpuMilli));
        const maxMemory = Math.max(...sizes.map((size) => size.memoryMi));
        expect(forward.replicas).toBe(1);
        expect(forward.requirements?.resourceRequest).toEqual({
          cpu: maxCpu % 1000 === 0 ? String(maxCpu / 1000) : `${maxCpu}m`,
          memory: maxMemory % 1024 === 0 ? `${maxMemory / 1024}Gi` : `${maxMemory}Mi`,
        });
      }),
    );
  });

  it('applies templateDefaults.container only to container templates (Argo keeps each template type)', () => {
    const result = getReplicas(
      workflow({
        templateDefaults: { container: cpu('4') },
        templates: [{ name: 's', script: { image: 'python', source: 'print(1)', ...cpu('100m') } }],
      }),
    );
    expect(result.requirements?.resourceRequest).toEqual({ cpu: '100m' });
  });

  it('lets a template override templateDefaults resources key by key', () => {
    const result = getReplicas(
      workflow({
        templateDefaults: { container: { resources: { requests: { cpu: '1', memory: '1Gi' } } } },
        templates: [{ name: 'c', container: { image: 'busybox', resources: { requests: { memory: '3Gi' } } } }],
      }),
    );
    expect(result.requirements?.resourceRequest).toEqual({ cpu: '1', memory: '3Gi' });
  });

  it('uses podResources (template over workflow) instead of the container total', () => {
    const result = getReplicas(
      workflow({
        podResources: { requests: { cpu: '3' } },
        templates: [
          { name: 'own', podResources: { requests: { cpu: '500m' } }, container: { image: 'a', ...cpu('2') } },
          { name: 'inherits', container: { image: 'b', ...cpu('1') } },
        ],
      }),
    );
    expect(result.requirements?.resourceRequest).toEqual({ cpu: '3' });
  });

  it('adds native sidecars (restartable init containers) to the main containers', () => {
    const result = getReplicas(
      workflow({
        templates: [
          {
            name: 'main',
            initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always', ...cpu('300m') }],
            container: { image: 'app', ...cpu('700m') },
          },
        ],
      }),
    );
    expect(result.requirements?.resourceRequest).toEqual({ cpu: '1' });
  });

  it('counts only the sidecars of resource and data templates and nothing of http, plugin or suspend', () => {
    const result = getReplicas(
      workflow({
        templates: [
          { name: 'apply', resource: { action: 'create', manifest: 'kind: ConfigMap' }, sidecars: [{ name: 'log', image: 'fluent', ...cpu('150m') }] },
          { name: 'call', http: { url: 'https://example.com' } },
          { name: 'ext', plugin: { hello: { text: 'x' } } },
          { name: 'wait', suspend: {} },
        ],
      }),
    );
    expect(result.requirements?.resourceRequest).toEqual({ cpu: '150m' });
  });

  it("claims every pod's nodeSelector and tolerations when templates disagree, and ignores steps templates' own pods", () => {
    const result = getReplicas(
      workflow({
        entrypoint: 'flow',
        nodeSelector: { pool: 'default' },
        templates: [
          { name: 'a', nodeSelector: { gpu: 'a100' }, tolerations: [{ key: 'gpu', operator: 'Exists' }], container: { image: 'a' } },
          { name: 'b', container: { image: 'b' } },
          {
            name: 'flow',
            steps: [
              [
                { name: 'x', template: 'a' },
                { name: 'y', template: 'b' },
              ],
            ],
          },
        ],
      }),
    );
    expect(result.requirements?.nodeClaim).toEqual({ nodeSelector: { gpu: 'a100', pool: 'default' }, tolerations: [{ key: 'gpu', operator: 'Exists' }] });
  });

  it('reports the priority class even when nothing else is known', () => {
    expect(getReplicas(workflow({ podPriorityClassName: 'batch-low', workflowTemplateRef: { name: 'x' } }))).toEqual({
      replicas: 1,
      requirements: { priorityClassName: 'batch-low' },
    });
  });

  it('rejects an invalid quantity with a 400 naming the field', () => {
    let caught: unknown;
    try {
      getReplicas(workflow({ templates: [{ name: 'bad', container: { image: 'a', ...cpu('two') } }] }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InterpreterError);
    expect((caught as InterpreterError).code).toBe(400);
    expect((caught as InterpreterError).message).toContain('cpu');
  });
});
