// Has the Go operator applied this spec? It records md5(json.Marshal(spec)) as status.lastApplySpecHash
// once a reconcile completes (internal/util Md5Hash, internal/controller). The struct behind
// json.Marshal changed across the operator's history, and a member may run any build, so we hash
// with every known layout whose fields can hold the observed spec (the member CRD prunes unknown
// fields, so a layout missing one of the spec's keys cannot be the member's).
import { createHash } from 'node:crypto';
import { goBool, goInt, goMap, goMarshal, GoLayoutMismatch, goQuantity, goString, ptr, slice, struct, type GoField, type GoType } from './typed-json.ts';

const boolArg = (json: string): GoField => ({ json, type: goBool, omitempty: true });
const stringArg = (json: string): GoField => ({ json, type: ptr(goString), omitempty: true });
const intArg = (json: string): GoField => ({ json, type: goInt, omitempty: true });
const intPtrArg = (json: string): GoField => ({ json, type: ptr(goInt), omitempty: true });

const KEBAB_FLAGS = ['jaeger-offline', 'jaeger-online', 'jaeger-level', 'client-use-backoff'];
const KEBAB_STRINGS = [
  'auth-private-key',
  'auth-public-key',
  'jaeger-output-dir',
  'log-file',
  'log-rotate',
  'log-level',
  'heartbeat-interval',
  'server-wait-synced-timeout',
  'retry-timeout',
  'rpc-timeout',
  'batch-timeout',
  'client-wait-synced-timeout',
  'client-propose-timeout',
  'client-initial-retry-timeout',
  'client-max-retry-timeout',
  'gc-interval',
  'range-retry-timeout',
  'compact-timeout',
  'sync-victims-interval',
  'watch-progress-notify-interval',
  'curp-dir',
  'compact-sleep-interval',
];
const KEBAB_TICKS = ['follower-timeout-ticks', 'candidate-timeout-ticks', 'log-entries-cap', 'cmd-workers', 'compact-batch-size', 'quota'];

/** XlineArgs with `batch-max-size` as a size string ("\d+(B|MB|GB)"), the layout of operator commit ffe15cd. */
const kebabArgs = struct([
  ...KEBAB_FLAGS.map(boolArg),
  ...KEBAB_STRINGS.map(stringArg),
  stringArg('batch-max-size'),
  intArg('retry-count'),
  ...KEBAB_TICKS.map(intArg),
]);
/** The earlier XlineArgs: `batch-max-size` an int placed after `retry-count`. */
const kebabArgsIntBatch = struct([
  ...KEBAB_FLAGS.map(boolArg),
  ...KEBAB_STRINGS.map(stringArg),
  intArg('retry-count'),
  intArg('batch-max-size'),
  ...KEBAB_TICKS.map(intArg),
]);
/** The later XlineArgs with camelCase keys, Xline v0.7 flags and pointer integers. */
const camelArgs = struct([
  ...['isLeader', 'jaegerOffline', 'jaegerOnline', 'jaegerLevel', 'clientUseBackoff'].map(boolArg),
  ...[
    'authPrivateKey',
    'authPublicKey',
    'jaegerOutputDir',
    'logFile',
    'logRotate',
    'logLevel',
    'heartbeatInterval',
    'serverWaitSyncedTimeout',
    'retryTimeout',
    'rpcTimeout',
    'batchTimeout',
    'clientWaitSyncedTimeout',
    'clientProposeTimeout',
    'clientInitialRetryTimeout',
    'clientMaxRetryTimeout',
    'gcInterval',
    'rangeRetryTimeout',
    'compactTimeout',
    'syncVictimsInterval',
    'watchProgressNotifyInterval',
    'curpDir',
    'compactSleepInterval',
    'autoCompactMode',
    'autoPeriodicRetention',
    'autoRevisionRetention',
    'initialClusterState',
  ].map(stringArg),
  ...['retryCount', 'batchMaxSize', 'followerTimeoutTicks', 'candidateTimeoutTicks', 'logEntriesCap', 'cmdWorkers', 'compactBatchSize', 'quota'].map(intPtrArg),
]);

const image: GoField = { json: 'image', type: ptr(goString), omitempty: true };
const imagePullPolicy: GoField = { json: 'imagePullPolicy', type: goString, omitempty: true };
const replicas: GoField = { json: 'replicas', type: goInt };
const bootstrapArgs = (args: GoType): GoField => ({ json: 'bootstrapArgs', type: args, omitempty: true });
const authSecret: GoField = {
  json: 'authSecret',
  type: ptr(struct(['name', 'mountPath', 'pubKey', 'priKey'].map((json) => ({ json, type: ptr(goString) })))),
  omitempty: true,
};
const storage: GoField[] = [
  { json: 'storageClassName', type: ptr(goString) },
  {
    json: '',
    embedded: true,
    type: struct([
      { json: 'limits', type: goMap(goQuantity), omitempty: true },
      { json: 'requests', type: goMap(goQuantity), omitempty: true },
      { json: 'claims', type: slice(struct([{ json: 'name', type: goString }])), omitempty: true },
    ]),
  },
];

/** XlineClusterSpec layouts, newest first; the name says which operator build used it. */
export const SPEC_LAYOUTS: ReadonlyArray<{ name: string; type: GoType }> = [
  { name: 'camelCase bootstrapArgs', type: struct([image, bootstrapArgs(camelArgs), imagePullPolicy, replicas]) },
  {
    name: 'kebab bootstrapArgs + authSecret + storage/resources',
    type: struct([image, bootstrapArgs(kebabArgs), imagePullPolicy, replicas, authSecret, ...storage]),
  },
  { name: 'kebab bootstrapArgs + authSecret', type: struct([image, bootstrapArgs(kebabArgs), imagePullPolicy, replicas, authSecret]) },
  { name: 'kebab bootstrapArgs (ffe15cd)', type: struct([image, bootstrapArgs(kebabArgs), imagePullPolicy, replicas]) },
  { name: 'kebab bootstrapArgs, integer batch-max-size', type: struct([image, bootstrapArgs(kebabArgsIntBatch), imagePullPolicy, replicas]) },
  { name: 'version field, no bootstrapArgs', type: struct([{ json: 'version', type: goString }, image, imagePullPolicy, replicas]) },
];

export const md5Hex = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

/** The hash a build with `layout` stores for `spec`, or undefined if that layout cannot hold the spec. */
export function operatorSpecHash(spec: unknown, layout: GoType): string | undefined {
  try {
    return md5Hex(goMarshal(spec, layout));
  } catch (error) {
    if (error instanceof GoLayoutMismatch) return undefined;
    throw error;
  }
}

/**
 * true: lastApplySpecHash is the hash of this spec under a known layout (the operator applied it).
 * false: no hash yet, or it differs under every layout that can hold the spec.
 * undefined: no known layout can hold the spec (an operator build we do not model).
 */
export function specApplied(spec: unknown, lastApplySpecHash: unknown): boolean | undefined {
  // Stops at the first layout whose hash matches: the common case (an applied spec) hashes once.
  let anyLayoutHolds = false;
  for (const layout of SPEC_LAYOUTS) {
    const hash = operatorSpecHash(spec, layout.type);
    if (hash === undefined) continue;
    anyLayoutHolds = true;
    if (hash === lastApplySpecHash) return true;
  }
  return anyLayoutHolds ? false : undefined;
}
