// The Go operator's lastApplySpecHash: md5 of json.Marshal(XlineClusterSpec). Expected bytes are
// written out by hand from the struct tags (field order, omitempty, pointer vs value, HTML-safe
// escaping); expected digests were computed independently with coreutils `md5sum` over those bytes.
import { describe, expect, it } from 'vitest';
import { goMarshal } from '../../interpreters/xline.io.datenlord.com/v1alpha1/XlineCluster/typed-json.ts';
import { md5Hex, operatorSpecHash, SPEC_LAYOUTS, specApplied } from '../../interpreters/xline.io.datenlord.com/v1alpha1/XlineCluster/spec-hash.ts';

const layout = (name: string) => {
  const found = SPEC_LAYOUTS.find((l) => l.name === name);
  if (!found) throw new Error(`no layout ${name}`);
  return found.type;
};
const FFE15CD = layout('kebab bootstrapArgs (ffe15cd)');
const CAMEL = layout('camelCase bootstrapArgs');
const STORAGE = layout('kebab bootstrapArgs + authSecret + storage/resources');

describe('Go json.Marshal of XlineClusterSpec', () => {
  it('orders fields as the struct does, keeps bootstrapArgs as {} and drops an empty imagePullPolicy', () => {
    // Keys arrive in the API server's (sorted) order; Go writes struct order.
    const spec = { replicas: 3, image: 'ghcr.io/xline-kv/xline:v0.6.1' };
    expect(goMarshal(spec, FFE15CD)).toBe('{"image":"ghcr.io/xline-kv/xline:v0.6.1","bootstrapArgs":{},"replicas":3}');
  });

  it('hashes the Go operator sample spec to the md5 of the Go bytes', () => {
    const spec = { image: 'ghcr.io/xline-kv/xline:v0.6.1', imagePullPolicy: 'IfNotPresent', replicas: 3 };
    expect(goMarshal(spec, FFE15CD)).toBe('{"image":"ghcr.io/xline-kv/xline:v0.6.1","bootstrapArgs":{},"imagePullPolicy":"IfNotPresent","replicas":3}');
    expect(operatorSpecHash(spec, FFE15CD)).toBe('73e8b484f8252503fabf69bad7d2ea2d');
  });

  it('writes bootstrapArgs in XlineArgs field order, not the input order', () => {
    const spec = {
      replicas: 5,
      imagePullPolicy: 'IfNotPresent',
      image: 'ghcr.io/xline-kv/xline:v0.6.1',
      bootstrapArgs: { 'retry-count': 5, 'batch-max-size': '2MB', 'heartbeat-interval': '150ms', 'log-level': 'debug' },
    };
    expect(goMarshal(spec, FFE15CD)).toBe(
      '{"image":"ghcr.io/xline-kv/xline:v0.6.1","bootstrapArgs":{"log-level":"debug","heartbeat-interval":"150ms","batch-max-size":"2MB","retry-count":5},"imagePullPolicy":"IfNotPresent","replicas":5}',
    );
    expect(operatorSpecHash(spec, FFE15CD)).toBe('7c056bda1443a7113bde8aa9ee0d6237');
  });

  it('emits a nil pointer without omitempty as null (storageClassName) and omits a nil authSecret', () => {
    const spec = { image: 'ghcr.io/xline-kv/xline:v0.6.1', imagePullPolicy: 'IfNotPresent', replicas: 3 };
    expect(goMarshal(spec, STORAGE)).toBe(
      '{"image":"ghcr.io/xline-kv/xline:v0.6.1","bootstrapArgs":{},"imagePullPolicy":"IfNotPresent","replicas":3,"storageClassName":null}',
    );
    expect(operatorSpecHash(spec, STORAGE)).toBe('dbc4669622a8ba93b8978a8ba0bb5536');
  });

  it('keeps a pointer to zero (camelCase *int) and escapes <, > and & as Go does', () => {
    const spec = { replicas: 3, bootstrapArgs: { retryCount: 0, isLeader: true }, image: 'reg.local/xline:<dev>&x' };
    expect(goMarshal(spec, CAMEL)).toBe('{"image":"reg.local/xline:\\u003cdev\\u003e\\u0026x","bootstrapArgs":{"isLeader":true,"retryCount":0},"replicas":3}');
    expect(operatorSpecHash(spec, CAMEL)).toBe('7a0b91e428746c4138f48234bceb4819');
  });

  it('promotes the embedded ResourceRequirements and prints quantities canonically with sorted map keys', () => {
    const spec = { replicas: 3, storageClassName: 'fast', requests: { memory: '1024Mi', cpu: '500m' }, limits: { cpu: '1000m' } };
    expect(goMarshal(spec, STORAGE)).toBe(
      '{"bootstrapArgs":{},"replicas":3,"storageClassName":"fast","limits":{"cpu":"1"},"requests":{"cpu":"500m","memory":"1Gi"}}',
    );
  });

  it('refuses keys the layout does not declare, so another build is never mistaken for this one', () => {
    expect(operatorSpecHash({ replicas: 3, bootstrapArgs: { isLeader: true } }, FFE15CD)).toBeUndefined();
    expect(operatorSpecHash({ replicas: 3, authSecret: { name: 's' } }, FFE15CD)).toBeUndefined();
    expect(operatorSpecHash({ replicas: '3' }, FFE15CD)).toBeUndefined();
    expect(operatorSpecHash({ replicas: 3, storageClassName: null, limits: { cpu: 'lots' } }, STORAGE)).toBeUndefined();
  });
});

describe('specApplied', () => {
  const spec = { image: 'ghcr.io/xline-kv/xline:v0.6.1', imagePullPolicy: 'IfNotPresent', replicas: 3 };

  it('is true when the stored hash is the hash of this spec under some known layout', () => {
    expect(specApplied(spec, '73e8b484f8252503fabf69bad7d2ea2d')).toBe(true);
    expect(specApplied(spec, 'dbc4669622a8ba93b8978a8ba0bb5536')).toBe(true);
  });

  it('is false after a spec change the operator has not applied, and without a hash', () => {
    expect(specApplied({ ...spec, replicas: 5 }, '73e8b484f8252503fabf69bad7d2ea2d')).toBe(false);
    expect(specApplied(spec, undefined)).toBe(false);
  });

  it('is unknown for a spec no known layout can hold', () => {
    expect(specApplied({ ...spec, somethingNew: true }, md5Hex('x'))).toBeUndefined();
  });
});
