// The `kube` module (spec §5.3) through real scripts.
import { afterAll, describe, expect, it } from 'vitest';
import { LuaRuntime } from '../../src/lua/runtime.ts';
import { karmadaPodDependencies } from '../../src/k8s/pod-dependencies.ts';
import { karmadaPodRequirements } from '../../src/k8s/pod-requirements.ts';
import { reflectScript, workload } from './helpers.ts';

const rt = new LuaRuntime();
afterAll(() => rt.close());
const reflect = (body: string, obj = workload()) => rt.call('InterpretStatus', reflectScript(`local kube = require("kube")\n${body}`), [obj]);

const podTemplate = {
  metadata: { labels: { app: 'web' } },
  spec: {
    serviceAccountName: 'web-sa',
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
    overhead: { cpu: '10m' },
    initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '2', memory: '16Mi' } } }],
    containers: [
      { name: 'app', image: 'nginx', resources: { requests: { cpu: '250m', memory: '64Mi' } }, envFrom: [{ configMapRef: { name: 'web-config' } }] },
      { name: 'side', image: 'envoy', resources: { limits: { cpu: '500m', memory: '128Mi' } } },
    ],
    volumes: [
      { name: 'data', persistentVolumeClaim: { claimName: 'web-data' } },
      { name: 'tls', secret: { secretName: 'web-tls' } },
    ],
  },
};

describe('kube.resourceAdd', () => {
  it('adds quantity strings exactly and prints them canonically', async () => {
    expect(
      await reflect(
        `return { a = kube.resourceAdd("100m", "1.5", nil), b = kube.resourceAdd("1Gi", "512Mi"), zero = kube.resourceAdd(), c = kube.resourceAdd("0.1", "0.2") }`,
      ),
    ).toEqual({
      a: '1600m',
      b: '1536Mi',
      zero: '0',
      c: '300m',
    });
  });

  it('rejects Lua numbers and unparsable strings', async () => {
    await expect(reflect(`return { a = kube.resourceAdd(1) }`)).rejects.toThrow(/bad argument #1 to resourceAdd \(string expected, got number\)/);
    await expect(reflect(`return { a = kube.resourceAdd("1", "lots") }`)).rejects.toThrow(/cannot parse 'lots'/);
  });
});

describe('kube.getResourceQuantity', () => {
  it('returns the approximate float value, 0 for nil', async () => {
    expect(await reflect(`return { a = kube.getResourceQuantity("1500m"), b = kube.getResourceQuantity("1Ki"), c = kube.getResourceQuantity(nil) }`)).toEqual({
      a: 1.5,
      b: 1024,
      c: 0,
    });
  });

  // resource.ParseQuantity refuses a byte-order mark like any other leading byte (apimachinery quantity.go).
  it('refuses a quantity that starts with a byte-order mark', async () => {
    await expect(reflect(`return { a = kube.getResourceQuantity("\\239\\187\\1911") }`)).rejects.toThrow(/cannot parse/);
  });

  it('rejects numbers and negative quantities', async () => {
    await expect(reflect(`return { a = kube.getResourceQuantity(2) }`)).rejects.toThrow(/string expected, got number/);
    await expect(reflect(`return { a = kube.getResourceQuantity("-1") }`)).rejects.toThrow(/negative/);
  });
});

describe('kube.accuratePodRequirements', () => {
  it('returns what karmadaPodRequirements computes (init containers, limits as requests, overhead, node claim)', async () => {
    const obj = workload({ spec: { template: podTemplate } });
    const out = await reflect(`return { r = kube.accuratePodRequirements(observedObj.spec.template) }`, obj);
    const expected = karmadaPodRequirements(podTemplate)!;
    expect(out.r).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(expected.resourceRequest).toEqual({ cpu: '2010m', memory: '192Mi' });
    expect(expected.nodeClaim?.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux' });
  });

  it('returns nil when there are neither resources nor a node claim', async () => {
    const obj = workload({ spec: { template: { spec: { containers: [{ name: 'a', image: 'a' }] } } } });
    expect(await reflect(`return { isNil = kube.accuratePodRequirements(observedObj.spec.template) == nil }`, obj)).toEqual({ isNil: true });
  });

  it('takes exactly one table', async () => {
    await expect(reflect(`return { r = kube.accuratePodRequirements({}, {}) }`)).rejects.toThrow(/only accepts one argument/);
    await expect(reflect(`return { r = kube.accuratePodRequirements("x") }`)).rejects.toThrow(/table expected, got string/);
  });
});

describe('kube.getPodDependencies', () => {
  it('returns the dependencies karmadaPodDependencies finds', async () => {
    const obj = workload({ spec: { template: podTemplate } });
    const out = await reflect(
      `local deps = kube.getPodDependencies(observedObj.spec.template, "web-ns")
      table.sort(deps, function(a, b) return a.kind .. a.name < b.kind .. b.name end)
      return { deps = deps }`,
      obj,
    );
    const expected = karmadaPodDependencies(podTemplate, 'web-ns');
    expect(expected.length).toBe(4);
    const key = (d: { kind: string; name?: string }) => `${d.kind}${d.name}`;
    expect(out.deps).toEqual([...expected].sort((a, b) => (key(a) < key(b) ? -1 : 1)));
  });

  it('defaults the namespace to "default", accepts numbers, returns nil when there are none', async () => {
    const obj = workload({ spec: { template: podTemplate } });
    expect(await reflect(`local d = kube.getPodDependencies(observedObj.spec.template, nil) return { ns = d[1].namespace }`, obj)).toEqual({ ns: 'default' });
    expect(await reflect(`local d = kube.getPodDependencies(observedObj.spec.template, 42) return { ns = d[1].namespace }`, obj)).toEqual({ ns: '42' });
    const bare = workload({ spec: { template: { spec: { containers: [{ name: 'a', image: 'a' }] } } } });
    expect(await reflect(`return { isNil = kube.getPodDependencies(observedObj.spec.template, "ns") == nil }`, bare)).toEqual({ isNil: true });
  });

  // Go strings are bytes: a leading byte-order mark is part of the namespace, as in Karmada.
  it('keeps a leading byte-order mark of the namespace', async () => {
    const obj = workload({ spec: { template: podTemplate } });
    expect(await reflect(`local d = kube.getPodDependencies(observedObj.spec.template, "\\239\\187\\191ns") return { ns = d[1].namespace }`, obj)).toEqual({
      ns: '\ufeffns',
    });
  });

  it('takes exactly two arguments', async () => {
    await expect(reflect(`return { d = kube.getPodDependencies({}) }`)).rejects.toThrow(/only accepts two argument/);
  });
});

describe('kube helpers on invalid templates', () => {
  it('turn what the pod-template code rejects into a Lua error a script can catch', async () => {
    const bad = { spec: { containers: [{ name: 'a', image: 'a', resources: { requests: { cpu: 'lots' } } }] } };
    const obj = workload({ spec: { template: bad } });
    const out = await reflect(
      `local ok, err = pcall(kube.accuratePodRequirements, observedObj.spec.template)
      return { ok = ok, mentionsTarget = string.find(err, "PodTemplateSpec", 1, true) ~= nil }`,
      obj,
    );
    expect(out).toEqual({ ok: false, mentionsTarget: true });
    expect(await reflect(`return { add = kube.resourceAdd("1", "2") }`)).toEqual({ add: '3' });
  });
});

describe('quantities past the limits of src/k8s/quantity.ts (issue 19)', () => {
  it('are a Lua error a script can pcall, with a short message, not a stall', async () => {
    const huge = '1e100000';
    await expect(reflect(`return { a = kube.resourceAdd("${huge}", "1") }`)).rejects.toThrow(/cannot parse '1e100000': .*beyond ±1000/);
    const long = '9'.repeat(200_000);
    expect(await reflect(`local ok, err = pcall(kube.resourceAdd, "${long}"); return { ok = ok, short = #err < 300 }`)).toEqual({ ok: false, short: true });
    const obj = workload({ spec: { template: { spec: { containers: [{ name: 'a', resources: { requests: { cpu: huge } } }] } } } });
    await expect(reflect(`return { r = kube.accuratePodRequirements(observedObj.spec.template) }`, obj)).rejects.toThrow(
      /fail to convert lua value to PodTemplateSpec: .*invalid quantity "1e100000"/,
    );
  });
});
