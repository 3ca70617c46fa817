// Redaction of recorded exchanges (`serve --record` without `--record-keep-secrets`). What is
// redacted is listed in docs/recording.md; keep the two in step.
//
// Every redacted value is replaced by one fixed placeholder string, never removed: the recorded
// request keeps its shape (a Retain still copies a value, a container still has an env entry), and
// the recorded response is rebuilt against the redacted request (see redactExchange), so replaying
// a redacted file compares like with like instead of reporting the redaction as a change.
import { applyPatch, decodePatch, diff, encodePatch } from '../protocol/patch.js';
import type { InterpreterContext } from '../protocol/wire.js';
import type { RecordedExchange } from './format.js';

export const REDACTED = '<redacted by karmada-interpreter record>';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Words that make an annotation key look like it holds a secret (matched as whole words of the key). */
export const SECRET_WORDS: readonly string[] = [
  'token', 'tokens', 'password', 'passwords', 'passwd', 'secret', 'secrets', 'key', 'keys', 'apikey',
  'privatekey', 'credential', 'credentials', 'creds',
];
const SECRET_WORD_SET = new Set(SECRET_WORDS);

/**
 * Whether an annotation key looks like it holds a secret: one of SECRET_WORDS as a whole word of the
 * key (split at anything not a letter or digit and at camelCase humps), so `example.com/api-token`,
 * `vault.hashicorp.com/secret-volume-path` and `apiKey` match but `monkey` or `tokenizer` do not.
 */
export function isSecretAnnotation(key: string): boolean {
  if (key === LAST_APPLIED_ANNOTATION) return true;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.some((word) => SECRET_WORD_SET.has(word));
}

type Json = unknown;
const isRecord = (v: Json): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A deep copy of `value` with every redaction rule applied, wherever the shapes occur. */
export function redactValue<T>(value: T): T {
  return redactNode(value) as T;
}

function redactNode(node: Json): Json {
  if (Array.isArray(node)) return node.map(redactNode);
  if (!isRecord(node)) return node;
  const out: Record<string, Json> = {};
  const secretShaped = node.kind === 'Secret';
  for (const [key, child] of Object.entries(node)) {
    if (secretShaped && (key === 'data' || key === 'stringData') && isRecord(child)) out[key] = redactAllValues(child);
    else if (key === 'env' && Array.isArray(child)) out[key] = child.map(redactEnvVar);
    else if (key === 'metadata' && isRecord(child)) out[key] = redactMetadata(child);
    else out[key] = redactNode(child);
  }
  return out;
}

function redactAllValues(map: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(Object.keys(map).map((k) => [k, REDACTED]));
}

/** A container env entry `{name, value}`: the value goes, `valueFrom` (a reference) stays. */
function redactEnvVar(item: Json): Json {
  if (!isRecord(item) || typeof item.name !== 'string') return redactNode(item);
  const copy = redactNode(item) as Record<string, Json>;
  if ('value' in item && item.value !== undefined && item.value !== null) copy.value = REDACTED;
  return copy;
}

function redactMetadata(metadata: Record<string, Json>): Record<string, Json> {
  const copy = redactNode({ ...metadata, annotations: undefined }) as Record<string, Json>;
  if (!('annotations' in metadata)) {
    delete copy.annotations;
    return copy;
  }
  const annotations = metadata.annotations;
  copy.annotations = isRecord(annotations)
    ? Object.fromEntries(Object.entries(annotations).map(([k, v]) => [k, isSecretAnnotation(k) ? REDACTED : v]))
    : annotations;
  return copy;
}

/**
 * The exchange with its request redacted and its response rebuilt to match: a patch is applied to
 * the original object, the result redacted, and the patch re-computed against the redacted request
 * object (so a patch never carries a secret, and replaying the redacted request against the same
 * build yields the same patch). `rawStatus` is redacted by the same rules.
 */
export function redactExchange(exchange: RecordedExchange): RecordedExchange {
  const request = redactValue(exchange.request);
  const response = exchange.response && redactResponse(exchange.request, request, exchange.response);
  return { ...exchange, request, response };
}

function redactResponse(original: InterpreterContext, redacted: InterpreterContext, envelope: InterpreterContext): InterpreterContext {
  const response = envelope.response;
  if (!response) return envelope;
  const copy = { ...response };
  if (copy.rawStatus !== undefined) copy.rawStatus = redactValue(copy.rawStatus);
  if (copy.patch && original.request?.object && redacted.request?.object) {
    try {
      const patched = redactValue(applyPatch(original.request.object, decodePatch(copy.patch)));
      const ops = diff(redacted.request.object, patched);
      if (ops.length > 0) copy.patch = encodePatch(ops);
      else {
        delete copy.patch;
        delete copy.patchType;
      }
    } catch {
      // A patch we cannot apply is itself worth keeping for replay, but it may carry values: drop them.
      copy.patch = Buffer.from(JSON.stringify([{ op: 'test', path: '', value: REDACTED }])).toString('base64');
    }
  }
  return { ...envelope, response: copy };
}
