// Structural validation of built-in Kubernetes objects against @kubernetes/client-node's generated
// models (the OpenAPI schema of Kubernetes, as attribute type maps): every field must exist in the
// model (a typo such as readOnlyRootFileSystem is an error, where kubectl would drop it silently
// with a warning) and hold the right JSON type. Required fields are not in those maps; the tests
// assert the ones that matter. Chosen over hand-written schemas because it covers every field of
// these large types with Kubernetes' own definitions.
import * as k8s from '@kubernetes/client-node';

type AttributeMap = Array<{ name: string; baseName: string; type: string; format: string }>;
type Model = { getAttributeTypeMap(): AttributeMap };

const MODELS: Record<string, string> = {
  'v1/Namespace': 'V1Namespace',
  'v1/ServiceAccount': 'V1ServiceAccount',
  'v1/Service': 'V1Service',
  'apps/v1/Deployment': 'V1Deployment',
  'policy/v1/PodDisruptionBudget': 'V1PodDisruptionBudget',
  'autoscaling/v2/HorizontalPodAutoscaler': 'V2HorizontalPodAutoscaler',
  'networking.k8s.io/v1/NetworkPolicy': 'V1NetworkPolicy',
  'rbac.authorization.k8s.io/v1/ClusterRole': 'V1ClusterRole',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': 'V1ClusterRoleBinding',
};

export function builtinModelFor(object: { apiVersion?: string; kind?: string }): string | undefined {
  return MODELS[`${object.apiVersion}/${object.kind}`];
}

function model(name: string): Model | undefined {
  const candidate = (k8s as unknown as Record<string, unknown>)[name] as Model | undefined;
  return candidate && typeof candidate.getAttributeTypeMap === 'function' ? candidate : undefined;
}

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Problems of `value` against the model `type` (empty when it conforms). */
export function checkAgainstModel(value: unknown, type: string, path = ''): string[] {
  const problems: string[] = [];
  const expect = (ok: boolean, what: string) => {
    if (!ok) problems.push(`${path || '.'}: expected ${what}, got ${kindOf(value)} ${JSON.stringify(value)?.slice(0, 60)}`);
  };
  const array = /^Array<(.+)>$/.exec(type);
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (array) {
    expect(Array.isArray(value), 'an array');
    if (Array.isArray(value)) value.forEach((item, i) => problems.push(...checkAgainstModel(item, array[1]!, `${path}[${i}]`)));
  } else if (map) {
    expect(kindOf(value) === 'object', 'a map');
    if (kindOf(value) === 'object')
      for (const [key, item] of Object.entries(value as object)) problems.push(...checkAgainstModel(item, map[1]!, `${path}.${key}`));
  } else if (type === 'string') expect(typeof value === 'string', 'a string');
  else if (type === 'number') expect(typeof value === 'number' && Number.isFinite(value), 'a number');
  else if (type === 'boolean') expect(typeof value === 'boolean', 'a boolean');
  else if (type === 'IntOrString') expect(typeof value === 'string' || Number.isInteger(value), 'an integer or a string');
  else if (type === 'Date') expect(typeof value === 'string' && !Number.isNaN(Date.parse(value)), 'an RFC 3339 time');
  else if (type === 'any' || type === 'object') {
    // free-form (e.g. RawExtension)
  } else {
    const m = model(type);
    if (!m) return [`${path}: no client-node model ${type}`];
    expect(kindOf(value) === 'object', `an object (${type})`);
    if (kindOf(value) !== 'object') return problems;
    const attributes = new Map(m.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
    for (const [key, item] of Object.entries(value as object)) {
      const attributeType = attributes.get(key);
      if (!attributeType) problems.push(`${path}.${key}: unknown field of ${type}`);
      else problems.push(...checkAgainstModel(item, attributeType, `${path}.${key}`));
    }
  }
  return problems;
}
