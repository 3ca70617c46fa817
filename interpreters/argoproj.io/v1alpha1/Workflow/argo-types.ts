// The parts of Argo's Workflow types (argo-workflows pkg/apis/workflow/v1alpha1/workflow_types.go,
// http_types.go, data_types.go) that lead to an object the workflow needs in its cluster: which field
// holds which type, and which fields are references. InterpretDependency walks a Workflow along these
// types, so a reference is found where Argo reads one — not wherever a key happens to end in "Secret" —
// and free-form fields (plugin configuration, resource manifests, podSpecPatch) are never looked into.
// Pod-level references (volumes, env, envFrom, imagePullSecrets) go through the pod-template walker.

/** How a field holds its value: one value, a list, a list of lists (steps), or a map of values (hooks). */
export type Shape = 'one' | 'list' | 'listOfLists' | 'map';

/** A field that names an object the workflow needs. */
export type Reference =
  /** corev1.SecretKeySelector / ConfigMapKeySelector: `{name, key}` in the workflow's namespace. */
  | 'secretKeySelector'
  | 'configMapKeySelector'
  /** a ServiceAccount name (never "default", which every namespace has). */
  | 'serviceAccountName'
  /** TemplateRef / WorkflowTemplateRef: `{name, clusterScope}`. */
  | 'templateRef'
  /** SemaphoreRef: `{configMapKeyRef, namespace}` (a ConfigMap, possibly in another namespace). */
  | 'semaphoreRef'
  /** ArtifactRepositoryRef: `{configMap, key}` (Argo's default ConfigMap name when configMap is empty). */
  | 'artifactRepositoryRef';

export type FieldType = { type: TypeName; shape: Shape } | { reference: Reference; shape: Shape };

const one = (type: TypeName): FieldType => ({ type, shape: 'one' });
const list = (type: TypeName): FieldType => ({ type, shape: 'list' });
const ref = (reference: Reference, shape: Shape = 'one'): FieldType => ({ reference, shape });
const secret = ref('secretKeySelector');
const configMap = ref('configMapKeySelector');

/** S3Bucket: shared by S3Artifact and S3ArtifactRepository (`json:",inline"`). */
const S3_BUCKET = {
  accessKeySecret: secret,
  secretKeySecret: secret,
  sessionTokenSecret: secret,
  caSecret: secret,
  encryptionOptions: one('S3EncryptionOptions'),
};
/** HDFSConfig with HDFSKrbConfig inline: shared by HDFSArtifact and HDFSArtifactRepository. */
const HDFS_CONFIG = { krbCCacheSecret: secret, krbKeytabSecret: secret, krbConfigConfigMap: configMap };
const ARTIFACTORY_AUTH = { usernameSecret: secret, passwordSecret: secret };
const AZURE_BLOB_CONTAINER = { accountKeySecret: secret };
const GCS_BUCKET = { serviceAccountKeySecret: secret };
const OSS_BUCKET = { accessKeySecret: secret, secretKeySecret: secret };

/** ArtifactLocation, inlined into Artifact and used as Template.archiveLocation. `raw` and `plugin` reference nothing. */
const ARTIFACT_LOCATION = {
  s3: one('S3Artifact'),
  git: one('GitArtifact'),
  http: one('HTTPArtifact'),
  artifactory: one('ArtifactoryArtifact'),
  hdfs: one('HDFSArtifact'),
  oss: one('OSSArtifact'),
  gcs: one('GCSArtifact'),
  azure: one('AzureArtifact'),
};

const STEP = {
  arguments: one('Arguments'),
  inline: one('Template'),
  templateRef: ref('templateRef'),
  hooks: { type: 'LifecycleHook', shape: 'map' },
} as const satisfies Record<string, FieldType>;

export const ARGO_TYPES = {
  WorkflowSpec: {
    templates: list('Template'),
    arguments: one('Arguments'),
    serviceAccountName: ref('serviceAccountName'),
    executor: one('ExecutorConfig'),
    artifactRepositoryRef: ref('artifactRepositoryRef'),
    synchronization: one('Synchronization'),
    templateDefaults: one('Template'),
    hooks: { type: 'LifecycleHook', shape: 'map' },
    workflowTemplateRef: ref('templateRef'),
    artifactGC: one('ArtifactGC'),
  },
  Template: {
    inputs: one('Inputs'),
    outputs: one('Outputs'),
    archiveLocation: one('ArtifactLocation'),
    steps: { type: 'WorkflowStep', shape: 'listOfLists' },
    dag: one('DAGTemplate'),
    synchronization: one('Synchronization'),
    serviceAccountName: ref('serviceAccountName'),
    executor: one('ExecutorConfig'),
    http: one('HTTP'),
    data: one('Data'),
    resource: one('ResourceTemplate'),
    // Not memoize.cache.configMap: the controller creates that ConfigMap and writes the cache into it
    // in the member; a copy from the control plane would overwrite the entries there.
  },
  Inputs: { parameters: list('Parameter'), artifacts: list('Artifact') },
  Arguments: { parameters: list('Parameter'), artifacts: list('Artifact') },
  // Output parameters are read from the pod (path, jsonPath, expression), never from a ConfigMap.
  Outputs: { artifacts: list('Artifact') },
  Parameter: { valueFrom: one('ValueFrom') },
  ValueFrom: { configMapKeyRef: configMap },
  Artifact: { ...ARTIFACT_LOCATION, artifactGC: one('ArtifactGC') },
  ArtifactLocation: ARTIFACT_LOCATION,
  ArtifactGC: { serviceAccountName: ref('serviceAccountName') },
  S3Artifact: S3_BUCKET,
  S3EncryptionOptions: { serverSideCustomerKeySecret: secret },
  GitArtifact: { usernameSecret: secret, passwordSecret: secret, sshPrivateKeySecret: secret },
  HTTPArtifact: { auth: one('HTTPAuth') },
  HTTPAuth: { clientCert: one('ClientCertAuth'), oauth2: one('OAuth2Auth'), basicAuth: one('BasicAuth') },
  ClientCertAuth: { clientCertSecret: secret, clientKeySecret: secret },
  OAuth2Auth: { clientIDSecret: secret, clientSecretSecret: secret, tokenURLSecret: secret },
  BasicAuth: { usernameSecret: secret, passwordSecret: secret },
  ArtifactoryArtifact: ARTIFACTORY_AUTH,
  HDFSArtifact: HDFS_CONFIG,
  OSSArtifact: OSS_BUCKET,
  GCSArtifact: GCS_BUCKET,
  AzureArtifact: AZURE_BLOB_CONTAINER,
  WorkflowStep: STEP,
  DAGTemplate: { tasks: list('DAGTask') },
  DAGTask: STEP,
  LifecycleHook: { arguments: one('Arguments'), templateRef: ref('templateRef') },
  Synchronization: { semaphores: ref('semaphoreRef', 'list'), semaphore: ref('semaphoreRef') },
  ExecutorConfig: { serviceAccountName: ref('serviceAccountName') },
  HTTP: { headers: list('HTTPHeader') },
  HTTPHeader: { valueFrom: one('HTTPHeaderSource') },
  HTTPHeaderSource: { secretKeyRef: secret },
  Data: { source: one('DataSource') },
  DataSource: { artifactPaths: one('Artifact') },
  ResourceTemplate: { manifestFrom: one('ManifestFrom') },
  ManifestFrom: { artifact: one('Artifact') },
} as const satisfies Record<TypeName, Record<string, FieldType>>;

export type TypeName =
  | 'WorkflowSpec'
  | 'Template'
  | 'Inputs'
  | 'Arguments'
  | 'Outputs'
  | 'Parameter'
  | 'ValueFrom'
  | 'Artifact'
  | 'ArtifactLocation'
  | 'ArtifactGC'
  | 'S3Artifact'
  | 'S3EncryptionOptions'
  | 'GitArtifact'
  | 'HTTPArtifact'
  | 'HTTPAuth'
  | 'ClientCertAuth'
  | 'OAuth2Auth'
  | 'BasicAuth'
  | 'ArtifactoryArtifact'
  | 'HDFSArtifact'
  | 'OSSArtifact'
  | 'GCSArtifact'
  | 'AzureArtifact'
  | 'WorkflowStep'
  | 'DAGTemplate'
  | 'DAGTask'
  | 'LifecycleHook'
  | 'Synchronization'
  | 'ExecutorConfig'
  | 'HTTP'
  | 'HTTPHeader'
  | 'HTTPHeaderSource'
  | 'Data'
  | 'DataSource'
  | 'ResourceTemplate'
  | 'ManifestFrom';
