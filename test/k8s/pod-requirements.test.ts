import { describe, expect, it } from 'vitest';
import { InterpreterError } from '../../src/interpreter/types.ts';
import { karmadaPodRequirements, podTemplateRequirements } from '../../src/k8s/pod-requirements.ts';
import { isScalarResourceName } from '../../src/k8s/resource-names.ts';

/** C1: the CloneSet pod template with a native sidecar and an ordinary init container. */
function c1Template() {
  return {
    metadata: { labels: { app: 'web' } },
    spec: {
      priorityClassName: 'online-high',
      nodeSelector: { pool: 'general' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }],
          },
        },
      },
      initContainers: [
        { name: 'mesh-proxy', image: 'proxy:1', restartPolicy: 'Always', resources: { requests: { cpu: '200m', memory: '128Mi' } } },
        { name: 'migrate', image: 'app:2', resources: { requests: { cpu: '1', memory: '256Mi' } } },
      ],
      containers: [
        {
          name: 'app',
          image: 'app:2',
          resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { cpu: '1', memory: '1Gi' } },
        },
        { name: 'log-agent', image: 'agent:1', resources: { limits: { cpu: '100m', memory: '64Mi' } } },
      ],
    },
  };
}

const c1NodeClaim = {
  nodeSelector: { pool: 'general' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
  hardNodeAffinity: {
    nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }],
  },
};

function pod(spec: Record<string, unknown>) {
  return { metadata: {}, spec };
}

describe('karmadaPodRequirements (helper.GenerateReplicaRequirements)', () => {
  it('C1 built-in: sidecar treated as an ordinary init container (cpu 1 = max(600m, 1), memory 576Mi)', () => {
    expect(karmadaPodRequirements(c1Template())).toEqual({
      nodeClaim: c1NodeClaim,
      resourceRequest: { cpu: '1', memory: '576Mi' },
    });
  });

  it('has no priorityClassName or namespace (ResourceQuotaEstimate gate off)', () => {
    const result = karmadaPodRequirements(c1Template());
    expect(result).not.toHaveProperty('priorityClassName');
    expect(result).not.toHaveProperty('namespace');
  });

  it('returns undefined for an empty template (TestGenerateReplicaRequirements "nodeClaim and resource request are nil")', () => {
    expect(karmadaPodRequirements({})).toBeUndefined();
    expect(karmadaPodRequirements(pod({ containers: [{ name: 'a', image: 'x' }] }))).toBeUndefined();
  });

  it('limits stand in for missing requests (TestGenerateReplicaRequirements "has resourceRequest")', () => {
    expect(karmadaPodRequirements(pod({ containers: [{ name: 'a', resources: { limits: { cpu: '200m' } } }] }))).toEqual({
      resourceRequest: { cpu: '200m' },
    });
  });

  it('an explicit request wins over the limit, per resource', () => {
    const result = karmadaPodRequirements(pod({ containers: [{ resources: { requests: { cpu: '100m' }, limits: { cpu: '2', memory: '1Gi' } } }] }));
    expect(result?.resourceRequest).toEqual({ cpu: '100m', memory: '1Gi' });
  });

  it('init-container limits default their requests too', () => {
    const result = karmadaPodRequirements(
      pod({ containers: [{ resources: { requests: { cpu: '100m' } } }], initContainers: [{ resources: { limits: { cpu: '3' } } }] }),
    );
    expect(result?.resourceRequest).toEqual({ cpu: '3' });
  });

  it('adds spec.overhead after the init-container max', () => {
    const result = karmadaPodRequirements(
      pod({
        containers: [{ resources: { requests: { cpu: '250m', memory: '100Mi' } } }],
        initContainers: [{ resources: { requests: { cpu: '500m' } } }],
        overhead: { cpu: '50m', memory: '20Mi' },
      }),
    );
    expect(result?.resourceRequest).toEqual({ cpu: '550m', memory: '120Mi' });
  });

  it('prints cpu as DecimalSI milli and memory/ephemeral-storage/hugepages as BinarySI integers', () => {
    const result = karmadaPodRequirements(
      pod({
        containers: [
          {
            resources: {
              requests: {
                cpu: '1.5',
                memory: '1G',
                'ephemeral-storage': '2Gi',
                'hugepages-2Mi': '4Mi',
                'nvidia.com/gpu': '1',
                'example.com/foo': '2k',
              },
            },
          },
          { resources: { requests: { cpu: '0.5', memory: '1G' } } },
        ],
      }),
    );
    expect(result?.resourceRequest).toEqual({
      cpu: '2',
      memory: '1953125Ki', // NewQuantity(2e9, BinarySI): 2e9 = 1953125 * 1024
      'ephemeral-storage': '2Gi',
      'example.com/foo': '2k',
      'hugepages-2Mi': '4Mi',
      'nvidia.com/gpu': '1',
    });
  });

  it('rounds up like MilliValue/Value: 0.1m cpu -> 1m, 0.5 bytes -> 1', () => {
    const result = karmadaPodRequirements(pod({ containers: [{ resources: { requests: { cpu: '0.1m', memory: '0.5' } } }] }));
    expect(result?.resourceRequest).toEqual({ cpu: '1m', memory: '1' });
  });

  it('drops names util.Resource does not track and zero totals', () => {
    const result = karmadaPodRequirements(
      pod({
        containers: [
          { resources: { requests: { cpu: '0', memory: '0', storage: '1Gi', 'requests.example.com/x': '1', bogus: '5', 'example.com/zero': '0' } } },
        ],
      }),
    );
    expect(result).toBeUndefined();
  });

  it('node claim: an explicit empty nodeSelector still yields a (JSON-empty) claim, as Go tests NodeSelector == nil', () => {
    expect(karmadaPodRequirements(pod({ nodeSelector: {} }))).toEqual({ nodeClaim: {} });
    expect(karmadaPodRequirements(pod({ tolerations: [] }))).toBeUndefined();
  });

  it('node claim: only the required node affinity, never preferred terms or pod affinity', () => {
    const result = karmadaPodRequirements(
      pod({
        affinity: {
          nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: {} }] },
          podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname' }] },
        },
      }),
    );
    expect(result).toBeUndefined();
  });

  it('does not alias the input objects', () => {
    const template = c1Template();
    const result = karmadaPodRequirements(template)!;
    result.nodeClaim!.nodeSelector!.pool = 'changed';
    expect(template.spec.nodeSelector.pool).toBe('general');
  });

  it('rejects an invalid quantity with a 400 naming the field', () => {
    const call = () => karmadaPodRequirements(pod({ containers: [{ resources: { requests: { cpu: 'two' } } }] }));
    expect(call).toThrow(InterpreterError);
    expect(call).toThrow(/spec\.containers\[0\]\.resources\.cpu/);
  });

  it("keeps util.Resource's int64 arithmetic: what overflows is what Go stores (pkg/util/resource.go)", () => {
    // MilliValue of int64Amount{9, 18} overflows positiveScaleInt64 and is 0: no cpu reported.
    // Value of 20 digits (inf.Dec path) keeps the low 64 bits, a negative number: no memory reported.
    expect(karmadaPodRequirements(pod({ containers: [{ resources: { requests: { cpu: '9e18', memory: '12345678901234567890' } } }] }))).toBeUndefined();
    // 5e15 cores are 5e18 milli-cores each: two of them wrap int64 (`r.MilliCPU += ...`) to a negative total.
    const twoHuge = { resources: { requests: { cpu: '5e15', 'example.com/gpu': '5e18' } } };
    expect(karmadaPodRequirements(pod({ containers: [twoHuge, twoHuge] }))).toBeUndefined();
    expect(karmadaPodRequirements(pod({ containers: [twoHuge] }))?.resourceRequest).toEqual({ cpu: '5P', 'example.com/gpu': '5E' });
  });

  it('answers the quantities of issue 19 with a short 400 instead of building 10^100000', () => {
    for (const cpu of ['1e100000', '9'.repeat(200_000)]) {
      const template = pod({ containers: [{ resources: { requests: { cpu, 'example.com/a': cpu, 'example.com/b': cpu } } }] });
      for (const compute of [karmadaPodRequirements, podTemplateRequirements]) {
        let error: unknown;
        try {
          compute(template);
        } catch (err) {
          error = err;
        }
        expect(error).toBeInstanceOf(InterpreterError);
        expect((error as InterpreterError).code).toBe(400);
        expect((error as Error).message).toMatch(/^spec\.containers\[0\]\.resources\.cpu: invalid quantity .*a limit of this server/);
        expect((error as Error).message.length).toBeLessThan(250);
      }
    }
  });

  it('cuts a long resource name in its error message', () => {
    const name = `${'x'.repeat(10_000)}kubernetes.io/gpu`;
    const call = () => karmadaPodRequirements(pod({ containers: [{ resources: { requests: { [name]: 'lots' } } }] }));
    expect(call).toThrow(/\(10017 characters\): invalid quantity "lots"/);
  });
});

describe('podTemplateRequirements (Kubernetes effective request)', () => {
  it('C1: sidecar-aware requests 1200m / 704Mi, node claim and priorityClassName', () => {
    expect(podTemplateRequirements(c1Template())).toEqual({
      resourceRequest: { cpu: '1200m', memory: '704Mi' },
      nodeClaim: c1NodeClaim,
      priorityClassName: 'online-high',
    });
  });

  it('adds the namespace when given', () => {
    expect(podTemplateRequirements(c1Template(), { namespace: 'shop' })?.namespace).toBe('shop');
    expect(podTemplateRequirements(c1Template())).not.toHaveProperty('namespace');
  });

  it('a sidecar started after an init container does not count for that init step', () => {
    const result = podTemplateRequirements(
      pod({
        initContainers: [
          { name: 'setup', resources: { requests: { cpu: '2' } } },
          { name: 'proxy', restartPolicy: 'Always', resources: { requests: { cpu: '300m' } } },
        ],
        containers: [{ name: 'app', resources: { requests: { cpu: '1' } } }],
      }),
    );
    // steady 1 + 300m = 1300m; setup step 2 (no sidecar yet) -> max 2
    expect(result?.resourceRequest).toEqual({ cpu: '2' });
  });

  it('several sidecars accumulate for later init containers and for the steady state', () => {
    const result = podTemplateRequirements(
      pod({
        initContainers: [
          { name: 's1', restartPolicy: 'Always', resources: { requests: { cpu: '100m', memory: '100Mi' } } },
          { name: 's2', restartPolicy: 'Always', resources: { requests: { cpu: '200m', memory: '100Mi' } } },
          { name: 'init', resources: { requests: { cpu: '1', memory: '50Mi' } } },
        ],
        containers: [{ name: 'app', resources: { requests: { cpu: '500m', memory: '1Gi' } } }],
      }),
    );
    // init step: 1 + 300m = 1300m, 250Mi; steady: 800m, 1224Mi
    expect(result?.resourceRequest).toEqual({ cpu: '1300m', memory: '1224Mi' });
  });

  it('pod-level spec.resources replace the container total for cpu and memory (requests, else limits)', () => {
    const result = podTemplateRequirements(
      pod({
        resources: { requests: { cpu: '2' }, limits: { cpu: '4', memory: '3Gi' } },
        containers: [{ resources: { requests: { cpu: '500m', memory: '1Gi', 'ephemeral-storage': '1Gi' } } }],
        overhead: { cpu: '100m' },
      }),
    );
    expect(result?.resourceRequest).toEqual({ cpu: '2100m', memory: '3Gi', 'ephemeral-storage': '1Gi' });
  });

  it('omits empty node-claim parts and reports no claim when all are empty', () => {
    expect(podTemplateRequirements(pod({ nodeSelector: {}, tolerations: [] }))).toBeUndefined();
    expect(podTemplateRequirements(pod({ nodeSelector: {}, tolerations: [{ operator: 'Exists' }] }))).toEqual({
      nodeClaim: { tolerations: [{ operator: 'Exists' }] },
    });
  });

  it('a priority class alone is not a requirement (as in Karmada)', () => {
    expect(podTemplateRequirements(pod({ priorityClassName: 'high', containers: [{ name: 'a' }] }))).toBeUndefined();
  });

  it('equals the Karmada helper when there are no sidecars or pod-level resources', () => {
    const template = pod({
      nodeSelector: { zone: 'a' },
      initContainers: [{ resources: { requests: { cpu: '2', memory: '64Mi' } } }],
      containers: [{ resources: { requests: { cpu: '250m', memory: '256Mi' } } }, { resources: { limits: { cpu: '250m', memory: '256Mi' } } }],
    });
    expect(podTemplateRequirements(template)).toEqual(karmadaPodRequirements(template));
    expect(podTemplateRequirements(template)?.resourceRequest).toEqual({ cpu: '2', memory: '512Mi' });
  });
});

describe('isScalarResourceName (lifted corev1 helpers)', () => {
  it.each([
    ['nvidia.com/gpu', true],
    ['hugepages-1Gi', true],
    ['attachable-volumes-aws-ebs', true],
    ['kubernetes.io/batch-cpu', true],
    ['example.com/Foo_bar', true],
    ['requests.example.com/x', false],
    ['EXAMPLE.com/x', false],
    ['storage', false],
    ['cpu', false],
    ['a/b/c', false],
  ] as const)('%s -> %s', (name, expected) => {
    expect(isScalarResourceName(name)).toBe(expected);
  });
});

describe('a resources object shared by many pod templates (an Argo Workflow spec.podResources)', () => {
  it('is read once, so the work stays linear in the request', () => {
    let reads = 0;
    const requests = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`example.com/r${i}`, '1']));
    const shared = new Proxy(
      { requests: { ...requests, cpu: '250m' } },
      {
        get(target, key, receiver) {
          if (key === 'requests') reads++;
          return Reflect.get(target, key, receiver);
        },
      },
    );
    for (let i = 0; i < 500; i++) {
      const template = { spec: { containers: [{ name: `c${i}` }], resources: shared } };
      expect(podTemplateRequirements(template)?.resourceRequest?.cpu).toBe('250m');
    }
    expect(reads).toBe(1);
  });
});
