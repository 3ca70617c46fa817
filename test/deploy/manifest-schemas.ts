// Hand-written JSON Schemas (ajv) for the manifests whose kinds client-node has no model for: the
// cert-manager CRDs (fields we use, from cert-manager.io/v1), the prometheus-operator's ServiceMonitor
// and PrometheusRule (monitoring.coreos.com/v1, fields we use), Karmada's
// ResourceInterpreterWebhookConfiguration (karmada-protocol.md §3, with Karmada's admission rules)
// and kustomize's own files. Unknown fields are errors where we know the full field list.
import { Ajv } from 'ajv';

const GO_DURATION = '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$';
const DNS1123_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
const metadata = (namespaced: boolean) => ({
  type: 'object',
  required: namespaced ? ['name', 'namespace'] : ['name'],
  properties: {
    name: { type: 'string', pattern: DNS1123_SUBDOMAIN },
    namespace: { type: 'string' },
    labels: { type: 'object' },
    annotations: { type: 'object' },
  },
  additionalProperties: false,
});
const issuerRef = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, kind: { enum: ['Issuer', 'ClusterIssuer'] }, group: { const: 'cert-manager.io' } },
  additionalProperties: false,
};
const KEY_USAGES = [
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
];

const certificate = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { const: 'cert-manager.io/v1' },
    kind: { const: 'Certificate' },
    metadata: metadata(true),
    spec: {
      type: 'object',
      required: ['secretName', 'issuerRef'],
      anyOf: [{ required: ['commonName'] }, { required: ['dnsNames'] }, { required: ['ipAddresses'] }],
      properties: {
        secretName: { type: 'string', pattern: DNS1123_SUBDOMAIN },
        issuerRef,
        isCA: { type: 'boolean' },
        commonName: { type: 'string', maxLength: 64 },
        dnsNames: { type: 'array', minItems: 1, items: { type: 'string', pattern: DNS1123_SUBDOMAIN } },
        ipAddresses: { type: 'array', items: { type: 'string' } },
        duration: { type: 'string', pattern: GO_DURATION },
        renewBefore: { type: 'string', pattern: GO_DURATION },
        usages: { type: 'array', items: { enum: KEY_USAGES } },
        privateKey: {
          type: 'object',
          properties: {
            algorithm: { enum: ['RSA', 'ECDSA', 'Ed25519'] },
            size: { type: 'integer' },
            rotationPolicy: { enum: ['Never', 'Always'] },
            encoding: { enum: ['PKCS1', 'PKCS8'] },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

const issuer = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { const: 'cert-manager.io/v1' },
    kind: { const: 'Issuer' },
    metadata: metadata(true),
    spec: {
      type: 'object',
      minProperties: 1,
      maxProperties: 1, // exactly one issuer type
      properties: {
        selfSigned: { type: 'object', properties: { crlDistributionPoints: { type: 'array' } }, additionalProperties: false },
        ca: {
          type: 'object',
          required: ['secretName'],
          properties: { secretName: { type: 'string' }, crlDistributionPoints: { type: 'array' }, ocspServers: { type: 'array' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

// Operations Karmada's admission accepts in rules (every InterpreterOperation except Prune).
const OPERATIONS = [
  'InterpretReplica',
  'ReviseReplica',
  'InterpretComponent',
  'Retain',
  'AggregateStatus',
  'InterpretStatus',
  'InterpretHealth',
  'InterpretDependency',
];
const nonEmptyStrings = (extra: object = {}) => ({ type: 'array', minItems: 1, items: { type: 'string', ...extra } });

const resourceInterpreterWebhookConfiguration = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'webhooks'],
  properties: {
    apiVersion: { const: 'config.karmada.io/v1alpha1' },
    kind: { const: 'ResourceInterpreterWebhookConfiguration' },
    metadata: metadata(false),
    webhooks: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['name', 'clientConfig', 'rules', 'interpreterContextVersions'],
        properties: {
          name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$' },
          clientConfig: {
            type: 'object',
            oneOf: [{ required: ['url'] }, { required: ['service'] }],
            properties: {
              url: { type: 'string', pattern: '^https://[^/@?#]+(/[^?#]*)?$' },
              service: {
                type: 'object',
                required: ['namespace', 'name'],
                properties: {
                  namespace: { type: 'string' },
                  name: { type: 'string' },
                  path: { type: 'string', pattern: '^/' },
                  port: { type: 'integer', minimum: 1, maximum: 65535 },
                },
                additionalProperties: false,
              },
              caBundle: { type: 'string', pattern: '^[A-Za-z0-9+/]+={0,2}$' },
            },
            additionalProperties: false,
          },
          rules: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              required: ['operations', 'apiGroups', 'apiVersions', 'kinds'],
              properties: {
                operations: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...OPERATIONS, '*'] } },
                apiGroups: nonEmptyStrings(),
                apiVersions: nonEmptyStrings({ minLength: 1 }),
                kinds: nonEmptyStrings({ minLength: 1 }),
              },
              additionalProperties: false,
            },
          },
          timeoutSeconds: { type: 'integer', minimum: 1, maximum: 30 },
          interpreterContextVersions: { type: 'array', contains: { const: 'v1alpha1' } },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
};

const kustomization = {
  type: 'object',
  required: ['apiVersion', 'kind'],
  properties: {
    apiVersion: { enum: ['kustomize.config.k8s.io/v1beta1', 'kustomize.config.k8s.io/v1alpha1'] },
    kind: { enum: ['Kustomization', 'Component'] },
    namespace: { type: 'string' },
    labels: {
      type: 'array',
      items: {
        type: 'object',
        required: ['pairs'],
        properties: {
          pairs: { type: 'object', additionalProperties: { type: 'string' } },
          includeSelectors: { type: 'boolean' },
          includeTemplates: { type: 'boolean' },
        },
        additionalProperties: false,
      },
    },
    resources: { type: 'array', items: { type: 'string' } },
    components: { type: 'array', items: { type: 'string' } },
    images: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, newName: { type: 'string' }, newTag: { type: 'string' }, digest: { type: 'string' } },
        additionalProperties: false,
      },
    },
    patches: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          patch: { type: 'string' },
          target: {
            type: 'object',
            properties: { group: { type: 'string' }, version: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' } },
            additionalProperties: false,
          },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
};

// The fields of prometheus-operator's ServiceMonitor we use (monitoring.coreos.com/v1).
const serviceMonitor = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { const: 'monitoring.coreos.com/v1' },
    kind: { const: 'ServiceMonitor' },
    metadata: metadata(true),
    spec: {
      type: 'object',
      required: ['selector', 'endpoints'],
      properties: {
        selector: { type: 'object', properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } }, additionalProperties: false },
        namespaceSelector: { type: 'object' },
        endpoints: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['port'],
            properties: {
              port: { type: 'string' },
              path: { type: 'string', pattern: '^/' },
              scheme: { enum: ['http', 'https'] },
              interval: { type: 'string', pattern: '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$' },
              scrapeTimeout: { type: 'string' },
            },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

// The fields of prometheus-operator's PrometheusRule we use (monitoring.coreos.com/v1): alerting rules only.
const prometheusRule = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { const: 'monitoring.coreos.com/v1' },
    kind: { const: 'PrometheusRule' },
    metadata: metadata(true),
    spec: {
      type: 'object',
      required: ['groups'],
      properties: {
        groups: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['name', 'rules'],
            properties: {
              name: { type: 'string', minLength: 1 },
              interval: { type: 'string', pattern: GO_DURATION },
              rules: {
                type: 'array',
                minItems: 1,
                items: {
                  type: 'object',
                  required: ['alert', 'expr', 'labels', 'annotations'],
                  properties: {
                    alert: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9]*$' },
                    expr: { type: 'string', minLength: 1 },
                    for: { type: 'string', pattern: '^([0-9]+(ms|s|m|h|d|w|y))+$' },
                    labels: {
                      type: 'object',
                      required: ['severity'],
                      properties: { severity: { enum: ['critical', 'warning', 'info'] } },
                      additionalProperties: { type: 'string' },
                    },
                    annotations: {
                      type: 'object',
                      required: ['summary', 'description'],
                      additionalProperties: { type: 'string' },
                    },
                  },
                  additionalProperties: false,
                },
              },
            },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
const validators: Record<string, ReturnType<typeof ajv.compile>> = {
  'cert-manager.io/v1/Certificate': ajv.compile(certificate),
  'cert-manager.io/v1/Issuer': ajv.compile(issuer),
  'config.karmada.io/v1alpha1/ResourceInterpreterWebhookConfiguration': ajv.compile(resourceInterpreterWebhookConfiguration),
  'monitoring.coreos.com/v1/ServiceMonitor': ajv.compile(serviceMonitor),
  'monitoring.coreos.com/v1/PrometheusRule': ajv.compile(prometheusRule),
  'kustomize.config.k8s.io/v1beta1/Kustomization': ajv.compile(kustomization),
  'kustomize.config.k8s.io/v1alpha1/Component': ajv.compile(kustomization),
};

/** Problems of `object` against its hand-written schema; undefined when we have none for its kind. */
export function checkAgainstSchema(object: { apiVersion?: string; kind?: string }): string[] | undefined {
  const validate = validators[`${object.apiVersion}/${object.kind}`];
  if (!validate) return undefined;
  return validate(object) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '.'} ${e.message} ${JSON.stringify(e.params)}`);
}
