// Flags + environment -> one typed, validated Config for `serve`. Every flag has an environment
// variable (KARMADA_INTERPRETER_<FLAG>, list values comma-separated); a flag beats its variable.
// Problems fail fast with a message naming the flag.
import { parseArgs } from 'node:util';
import { formatGoDuration, parseGoDuration } from './go/duration.ts';
import { KindSelectorError, parseKindSelector } from './interpreter/kind-selector.ts';
import { selectExamples } from './customizations/examples.ts';
import { defaultWorkerCount } from './isolation/worker-pool.ts';

export interface ServeConfig {
  port: number;
  host: string;
  certDir?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  tlsSans: string[];
  /** `--self-signed-dir`: where the generated self-signed set is kept between starts (default: the user's cache). */
  selfSignedDir?: string;
  customizations: string[];
  /**
   * `--serve-with-broken-customizations`: a customization file that fails to load at start does not keep
   * the server unready (its kinds answer that it failed to load; the other files serve).
   */
  serveWithBrokenCustomizations: boolean;
  /** `--examples`: the shipped Lua examples to serve (`all` or kinds); none by default. */
  examples: string[];
  logLevel: string;
  bodyLimit: number;
  inflightBodyLimit: number;
  bodyIdleTimeoutMs: number;
  maxConnections: number;
  luaTimeoutMs: number;
  /** Worker threads for Lua customizations and state-preservation JSONPath. */
  luaWorkers: number;
  /** `--lua-workers auto`: the count was chosen from the CPUs, and may be lowered to fit the memory limit. */
  luaWorkersAuto: boolean;
  luaMemoryLimit: number;
  /** Settings left at their defaults, which `serve` may lower to fit the container's memory limit. */
  defaulted?: { luaMemoryLimit: boolean; maxConnections: boolean };
  /** Set by `serve` once the configuration was fitted to the container's memory limit (server/memory-fit.ts). */
  memoryFit?: { neededBytes: number; limit?: { bytes: number; file: string }; lowered: string[] };
  /** `--metrics-bind-address HOST:PORT`: also serve /metrics, /healthz, /readyz over plain HTTP there. */
  metricsBindAddress?: { host: string; port: number };
  shutdownDelayMs: number;
  shutdownTimeoutMs: number;
  /** `--record DIR`: write every exchange there (src/record/recorder.ts). */
  record?: string;
  recordMaxFiles: number;
  recordKeepSecrets: boolean;
  /** Keep the ResourceInterpreterWebhookConfiguration in karmada-apiserver current (serve --register). */
  register?: RegisterConfig;
}

export interface RegisterConfig {
  /** Path of the kubeconfig file for karmada-apiserver (used alone, as kubectl uses --kubeconfig). */
  kubeconfig: string;
  /** Context in it; default its current-context. */
  context?: string;
  url?: string;
  service?: string;
  caFile?: string;
  timeoutSeconds?: number;
  name?: string;
  webhookName?: string;
  /** `--register-kinds` / `--register-exclude-kinds`: which served kinds are registered (Kind or Kind.group). */
  kinds?: string[];
  excludeKinds?: string[];
}

interface OptionSpec {
  flag: string;
  env: string;
  multiple?: boolean;
  /** A switch (`--flag`, env `true`/`false`); its value reads as the string "true" or "false". */
  boolean?: boolean;
  help: string;
  default?: string;
}

export const SERVE_OPTIONS: OptionSpec[] = [
  { flag: 'port', env: 'KARMADA_INTERPRETER_PORT', default: '8443', help: 'HTTPS port to listen on' },
  { flag: 'host', env: 'KARMADA_INTERPRETER_HOST', default: '0.0.0.0', help: 'address to bind' },
  { flag: 'cert-dir', env: 'KARMADA_INTERPRETER_CERT_DIR', help: 'directory with tls.crt and tls.key (a mounted Secret); reloaded on change' },
  { flag: 'tls-cert-file', env: 'KARMADA_INTERPRETER_TLS_CERT_FILE', help: 'serving certificate (PEM); needs --tls-key-file' },
  { flag: 'tls-key-file', env: 'KARMADA_INTERPRETER_TLS_KEY_FILE', help: 'serving private key (PEM); needs --tls-cert-file' },
  { flag: 'tls-san', env: 'KARMADA_INTERPRETER_TLS_SAN', multiple: true, help: 'extra DNS name or IP for the generated self-signed certificate (repeatable)' },
  {
    flag: 'self-signed-dir',
    env: 'KARMADA_INTERPRETER_SELF_SIGNED_DIR',
    help: 'where the generated self-signed CA and certificate are kept and reused between starts [default: $XDG_CACHE_HOME or ~/.cache, then $TMPDIR, + /karmada-interpreter-webhook]',
  },
  {
    flag: 'customizations',
    env: 'KARMADA_INTERPRETER_CUSTOMIZATIONS',
    multiple: true,
    help: 'directory of ResourceInterpreterCustomization files (repeatable, recursive, reloaded on change); must exist at start (exit 2 otherwise)',
  },
  {
    flag: 'serve-with-broken-customizations',
    env: 'KARMADA_INTERPRETER_SERVE_WITH_BROKEN_CUSTOMIZATIONS',
    boolean: true,
    default: 'false',
    help: 'be ready although a --customizations file failed to load at start (its kinds answer that it failed to load); by default /readyz stays 503 naming the file until it loads',
  },
  {
    flag: 'examples',
    env: 'KARMADA_INTERPRETER_EXAMPLES',
    multiple: true,
    help: 'also serve shipped Lua examples: all, or kinds (Rollout.argoproj.io, ScaledObject.keda.sh) [default: none]',
  },
  { flag: 'log-level', env: 'KARMADA_INTERPRETER_LOG_LEVEL', default: 'info', help: 'fatal, error, warn, info, debug (bodies) or trace' },
  { flag: 'body-limit', env: 'KARMADA_INTERPRETER_BODY_LIMIT', default: '8MiB', help: 'largest request body, e.g. 8MiB, 512KiB, 1000000' },
  {
    flag: 'inflight-body-limit',
    env: 'KARMADA_INTERPRETER_INFLIGHT_BODY_LIMIT',
    default: '32MiB',
    help: 'request bytes received and held at once across calls; a body beyond it pauses until answers free room (the oldest arriving body always proceeds)',
  },
  {
    flag: 'body-idle-timeout',
    env: 'KARMADA_INTERPRETER_BODY_IDLE_TIMEOUT',
    default: '5s',
    help: 'a request body that stops arriving this long is cut (answered 408, connection closed); Go duration',
  },
  {
    flag: 'max-connections',
    env: 'KARMADA_INTERPRETER_MAX_CONNECTIONS',
    default: '4096',
    help: 'connections open at once on the webhook port (an idle one holds ~55KiB); at the maximum a new one takes the place of the longest-idle keep-alive connection, or is closed as it arrives when none is idle (counted in karmada_interpreter_connections_dropped_total)',
  },
  {
    flag: 'lua-timeout',
    env: 'KARMADA_INTERPRETER_LUA_TIMEOUT',
    default: '1s',
    help: 'time limit of one Lua call (Karmada uses 1s); a call still running 250ms past it has its worker thread terminated. Durations take Go syntax: 500ms, 1.5s, 1m30s, 1h',
  },
  {
    flag: 'lua-workers',
    env: 'KARMADA_INTERPRETER_LUA_WORKERS',
    default: 'auto',
    help: 'worker threads for Lua customizations and state-preservation JSONPath [auto: CPUs, 2-8, fewer when the container memory limit cannot hold them]; a count the memory limit cannot hold stops the start (exit 2)',
  },
  {
    flag: 'lua-memory-limit',
    env: 'KARMADA_INTERPRETER_LUA_MEMORY_LIMIT',
    default: '128MiB',
    help: 'memory one Lua call may take in its worker; past it the call fails (and a worker that keeps growing is terminated). A worker can hold up to 2x this + 112MiB: with the container memory limit it decides how many workers fit',
  },
  {
    flag: 'metrics-bind-address',
    env: 'KARMADA_INTERPRETER_METRICS_BIND_ADDRESS',
    help: 'HOST:PORT (or :PORT) for a plain-HTTP listener with /metrics, /healthz and /readyz, for Prometheus without the webhook TLS [default: off]',
  },
  {
    flag: 'shutdown-delay',
    env: 'KARMADA_INTERPRETER_SHUTDOWN_DELAY',
    default: '0s',
    help: 'on SIGTERM, keep serving (unready) this long so endpoints drop us first (Go duration)',
  },
  {
    flag: 'shutdown-timeout',
    env: 'KARMADA_INTERPRETER_SHUTDOWN_TIMEOUT',
    default: '20s',
    help: 'on SIGTERM, longest wait for in-flight requests (Go duration)',
  },
  {
    flag: 'record',
    env: 'KARMADA_INTERPRETER_RECORD',
    help: 'write every interpreter exchange to this directory as one JSON file, secrets redacted (docs/recording.md)',
  },
  {
    flag: 'record-max-files',
    env: 'KARMADA_INTERPRETER_RECORD_MAX_FILES',
    default: '10000',
    help: 'most files kept in the --record directory; the oldest are deleted',
  },
  {
    flag: 'record-keep-secrets',
    env: 'KARMADA_INTERPRETER_RECORD_KEEP_SECRETS',
    boolean: true,
    default: 'false',
    help: 'record env values, secret-like annotations and Secret data as received (no redaction)',
  },
  {
    flag: 'register',
    env: 'KARMADA_INTERPRETER_REGISTER',
    help: 'kubeconfig of karmada-apiserver: create/update the ResourceInterpreterWebhookConfiguration there at start and whenever the certificate or the served kinds change',
  },
  {
    flag: 'register-context',
    env: 'KARMADA_INTERPRETER_REGISTER_CONTEXT',
    help: 'with --register: context of the kubeconfig to use [default: its current-context]',
  },
  {
    flag: 'register-service',
    env: 'KARMADA_INTERPRETER_REGISTER_SERVICE',
    help: 'with --register: NAMESPACE/NAME[:PORT][/PATH] of our Service as karmada-apiserver sees it',
  },
  { flag: 'register-url', env: 'KARMADA_INTERPRETER_REGISTER_URL', help: 'with --register: https URL Karmada calls instead of a Service' },
  {
    flag: 'register-ca-file',
    env: 'KARMADA_INTERPRETER_REGISTER_CA_FILE',
    help: 'with --register: CA bundle to publish [default: ca.crt next to the serving certificate, else the certificate]',
  },
  {
    flag: 'register-timeout-seconds',
    env: 'KARMADA_INTERPRETER_REGISTER_TIMEOUT_SECONDS',
    default: '10',
    help: 'with --register: timeoutSeconds of the webhook (1-30)',
  },
  {
    flag: 'register-name',
    env: 'KARMADA_INTERPRETER_REGISTER_NAME',
    default: 'karmada-interpreter-webhook',
    help: 'with --register: metadata.name of the configuration',
  },
  {
    flag: 'register-webhook-name',
    env: 'KARMADA_INTERPRETER_REGISTER_WEBHOOK_NAME',
    default: 'interpreter.karmada-interpreter-webhook.io',
    help: 'with --register: webhooks[].name',
  },
  {
    flag: 'register-kinds',
    env: 'KARMADA_INTERPRETER_REGISTER_KINDS',
    multiple: true,
    help: 'with --register: register only these served kinds (Kind or Kind.group, e.g. CloneSet,Workflow.argoproj.io) [default: all served]',
  },
  {
    flag: 'register-exclude-kinds',
    env: 'KARMADA_INTERPRETER_REGISTER_EXCLUDE_KINDS',
    multiple: true,
    help: 'with --register: register every served kind but these',
  },
];

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  ki: 1024,
  kib: 1024,
  m: 1e6,
  mb: 1e6,
  mi: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1e9,
  gb: 1e9,
  gi: 1024 ** 3,
  gib: 1024 ** 3,
};

export function parseSize(text: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(text.trim());
  const unit = match ? SIZE_UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) throw new ConfigError(`--${flag}: ${JSON.stringify(text)} is not a size (e.g. 8MiB, 512KiB, 1000000)`);
  const bytes = Math.floor(Number(match[1]) * unit);
  if (bytes < 1024) throw new ConfigError(`--${flag}: ${text} is too small (at least 1KiB)`);
  return bytes;
}

/** Longest wait a Node.js timer can hold (2^31-1 ms); a longer one would fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A duration flag: Go's syntax (`1m30s`, `1h`, `500ms`, `1.5s`), as Kubernetes components take them. */
export function parseDuration(text: string, flag: string): number {
  const ms = parseGoDuration(text.trim());
  if (ms === undefined) throw new ConfigError(`--${flag}: ${JSON.stringify(text)} is not a duration (Go syntax, e.g. 500ms, 1.5s, 1m30s, 1h)`);
  if (ms > MAX_TIMER_MS) throw new ConfigError(`--${flag}: ${text} is too long (at most ${formatGoDuration(MAX_TIMER_MS)})`);
  return ms;
}

/** Parses argv with env fallbacks; returns the raw string values by flag name. */
export function parseOptions(specs: OptionSpec[], args: string[], env: NodeJS.ProcessEnv = process.env) {
  const options = Object.fromEntries(
    specs.map((s) => [s.flag, s.boolean ? { type: 'boolean' as const } : { type: 'string' as const, multiple: s.multiple ?? false }]),
  );
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: false, strict: true });
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const values: Record<string, string | string[] | undefined> = {};
  /** Flags given neither on the command line nor in the environment: their defaults apply. */
  const defaulted = new Set<string>();
  for (const spec of specs) {
    const flagValue = (parsed.values as Record<string, string | string[] | boolean | undefined>)[spec.flag];
    const fromFlag = typeof flagValue === 'boolean' ? String(flagValue) : flagValue;
    const fromEnv = env[spec.env];
    if (fromFlag !== undefined) values[spec.flag] = fromFlag;
    else if (fromEnv !== undefined && fromEnv !== '') {
      values[spec.flag] = spec.multiple
        ? fromEnv
            .split(',')
            .map((v) => v.trim())
            .filter(Boolean)
        : fromEnv;
    } else {
      values[spec.flag] = spec.multiple ? [] : spec.default;
      defaulted.add(spec.flag);
    }
  }
  return { values, defaulted, help: Boolean(parsed.values.help) };
}

export function serveConfig(args: string[], env: NodeJS.ProcessEnv = process.env): ServeConfig & { help: boolean } {
  const { values, defaulted, help } = parseOptions(SERVE_OPTIONS, args, env);
  const str = (flag: string) => values[flag] as string | undefined;
  const list = (flag: string) => values[flag] as string[];
  const port = Number(str('port'));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`--port: ${str('port')} is not a port number (0-65535)`);
  const logLevel = str('log-level')!;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`--log-level: ${logLevel} is not one of ${LOG_LEVELS.join(', ')}`);
  const certDir = str('cert-dir');
  const tlsCertFile = str('tls-cert-file');
  const tlsKeyFile = str('tls-key-file');
  if (certDir && (tlsCertFile || tlsKeyFile)) throw new ConfigError('--cert-dir and --tls-cert-file/--tls-key-file are alternatives: give one or the other');
  if (Boolean(tlsCertFile) !== Boolean(tlsKeyFile)) throw new ConfigError('--tls-cert-file and --tls-key-file must be given together');
  const selfSignedDir = str('self-signed-dir') || undefined;
  if (selfSignedDir && (certDir || tlsCertFile))
    throw new ConfigError('--self-signed-dir is for the generated certificate: it cannot be combined with --cert-dir or --tls-cert-file/--tls-key-file');
  const register = registerConfig(str, list);
  const customizations = list('customizations');
  const examples = list('examples');
  try {
    selectExamples(examples);
  } catch (error) {
    if (error instanceof KindSelectorError) throw new ConfigError(`--examples: ${error.message}`);
    throw error;
  }
  const metricsBindAddress = parseBindAddress(str('metrics-bind-address'), 'metrics-bind-address');
  return {
    help,
    port,
    host: str('host')!,
    certDir,
    tlsCertFile,
    tlsKeyFile,
    tlsSans: list('tls-san'),
    selfSignedDir,
    customizations,
    serveWithBrokenCustomizations: parseBoolean(str('serve-with-broken-customizations')!, 'serve-with-broken-customizations'),
    examples,
    logLevel,
    bodyLimit: parseSize(str('body-limit')!, 'body-limit'),
    inflightBodyLimit: parseSize(str('inflight-body-limit')!, 'inflight-body-limit'),
    bodyIdleTimeoutMs: positive(parseDuration(str('body-idle-timeout')!, 'body-idle-timeout'), 'body-idle-timeout'),
    maxConnections: parsePositiveInteger(str('max-connections')!, 'max-connections'),
    luaTimeoutMs: positive(parseDuration(str('lua-timeout')!, 'lua-timeout'), 'lua-timeout'),
    luaWorkers: parseWorkers(str('lua-workers')!),
    luaWorkersAuto: str('lua-workers')!.trim() === 'auto',
    luaMemoryLimit: parseSize(str('lua-memory-limit')!, 'lua-memory-limit'),
    defaulted: { luaMemoryLimit: defaulted.has('lua-memory-limit'), maxConnections: defaulted.has('max-connections') },
    ...(metricsBindAddress ? { metricsBindAddress } : {}),
    shutdownDelayMs: parseDuration(str('shutdown-delay')!, 'shutdown-delay'),
    shutdownTimeoutMs: parseDuration(str('shutdown-timeout')!, 'shutdown-timeout'),
    record: str('record') || undefined,
    recordMaxFiles: parsePositiveInteger(str('record-max-files')!, 'record-max-files'),
    recordKeepSecrets: parseBoolean(str('record-keep-secrets')!, 'record-keep-secrets'),
    ...(register ? { register } : {}),
  };
}

function registerConfig(str: (flag: string) => string | undefined, list: (flag: string) => string[]): RegisterConfig | undefined {
  const kubeconfig = str('register');
  const kinds = list('register-kinds');
  const excludeKinds = list('register-exclude-kinds');
  if (!kubeconfig) {
    if (kinds.length > 0 || excludeKinds.length > 0) throw new ConfigError('--register-kinds and --register-exclude-kinds go with --register');
    return undefined;
  }
  for (const [flag, values] of [
    ['register-kinds', kinds],
    ['register-exclude-kinds', excludeKinds],
  ] as const) {
    try {
      values
        .flatMap((value) => value.split(','))
        .filter((text) => text.trim() !== '')
        .forEach(parseKindSelector);
    } catch (error) {
      if (error instanceof KindSelectorError) throw new ConfigError(`--${flag}: ${error.message}`);
      throw error;
    }
  }
  const url = str('register-url');
  const service = str('register-service');
  if (Boolean(url) === Boolean(service)) throw new ConfigError('--register needs exactly one of --register-service or --register-url (how Karmada reaches us)');
  const timeoutSeconds = Number(str('register-timeout-seconds'));
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30) throw new ConfigError('--register-timeout-seconds must be 1-30');
  return {
    kubeconfig,
    context: str('register-context') || undefined,
    url,
    service,
    caFile: str('register-ca-file'),
    timeoutSeconds,
    name: str('register-name'),
    webhookName: str('register-webhook-name'),
    ...(kinds.length > 0 ? { kinds } : {}),
    ...(excludeKinds.length > 0 ? { excludeKinds } : {}),
  };
}

function positive(ms: number, flag: string): number {
  if (ms <= 0) throw new ConfigError(`--${flag}: must be longer than 0s`);
  return ms;
}

function parseWorkers(text: string): number {
  if (text.trim() === 'auto') return defaultWorkerCount();
  const n = parsePositiveInteger(text, 'lua-workers');
  if (n > 64) throw new ConfigError(`--lua-workers: ${n} is more than 64`);
  return n;
}

/** HOST:PORT, [IPv6]:PORT or :PORT (all addresses); empty or "0" turns the listener off, as in controller-runtime. */
function parseBindAddress(text: string | undefined, flag: string): { host: string; port: number } | undefined {
  if (!text || text === '0') return undefined;
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port > 65535) throw new ConfigError(`--${flag}: ${JSON.stringify(text)} is not HOST:PORT or :PORT`);
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
}

function parsePositiveInteger(text: string, flag: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1) throw new ConfigError(`--${flag}: ${JSON.stringify(text)} is not a whole number of at least 1`);
  return Number(text);
}

function parseBoolean(text: string, flag: string): boolean {
  const normalized = text.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(normalized)) return true;
  if (['false', '0', 'no'].includes(normalized)) return false;
  throw new ConfigError(`--${flag}: ${JSON.stringify(text)} is not true or false`);
}

export function optionsHelp(specs: OptionSpec[]): string {
  return specs
    .map((s) => `  --${s.flag}${s.multiple ? ' (repeatable)' : ''}\n      ${s.help}${s.default ? ` [default: ${s.default}]` : ''}\n      env: ${s.env}`)
    .join('\n');
}
