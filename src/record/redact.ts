// Redaction of recorded exchanges (`serve --record` without `--record-keep-secrets`). What is
// redacted is listed in docs/recording.md; keep the two in step.
//
// Every redacted value is replaced by one fixed placeholder string, never removed: the recorded
// request keeps its shape (a Retain still copies a value, a container still has an env entry), and
// the recorded response is rebuilt against the redacted request (see redactExchange), so replaying
// a redacted file compares like with like instead of reporting the redaction as a change.
import { applyPatch, decodePatch, diff, encodePatch } from '../protocol/patch.ts';
import type { InterpreterContext } from '../protocol/wire.ts';
import type { RecordedExchange } from './format.ts';

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

/**
 * A deep copy of `value` with every redaction rule applied, wherever the shapes occur. The JSON
 * Pointer (RFC 6901) of every replaced value is appended to `redacted` when given.
 */
export function redactValue<T>(value: T, redacted?: string[], pointer = ''): T {
  return redactNode(value, pointer, redacted ?? []) as T;
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function redactNode(node: Json, pointer: string, redacted: string[]): Json {
  if (Array.isArray(node)) return node.map((item, i) => redactNode(item, `${pointer}/${i}`, redacted));
  if (!isRecord(node)) return node;
  const secretShaped = node.kind === 'Secret';
  // Object.fromEntries, not assignment: a "__proto__" key in a request must stay an ordinary key.
  return Object.fromEntries(
    Object.entries(node).map(([key, child]) => {
      const at = `${pointer}/${escapePointer(key)}`;
      if (secretShaped && (key === 'data' || key === 'stringData') && isRecord(child)) return [key, redactAllValues(child, at, redacted)];
      if (key === 'env' && Array.isArray(child)) return [key, child.map((item, i) => redactEnvVar(item, `${at}/${i}`, redacted))];
      if (key === 'metadata' && isRecord(child)) return [key, redactMetadata(child, at, redacted)];
      return [key, redactNode(child, at, redacted)];
    }),
  );
}

function placeholder(at: string, redacted: string[]): string {
  redacted.push(at);
  return REDACTED;
}

function redactAllValues(map: Record<string, Json>, pointer: string, redacted: string[]): Record<string, Json> {
  return Object.fromEntries(Object.keys(map).map((k) => [k, placeholder(`${pointer}/${escapePointer(k)}`, redacted)]));
}

/** A container env entry `{name, value}`: the value goes, `valueFrom` (a reference) stays. */
function redactEnvVar(item: Json, pointer: string, redacted: string[]): Json {
  if (!isRecord(item) || typeof item.name !== 'string') return redactNode(item, pointer, redacted);
  const { value, ...rest } = item;
  const copy = redactNode(rest, pointer, redacted) as Record<string, Json>;
  if (!('value' in item)) return copy;
  // Keep the entry's key order (name, value, ...) so the file reads like the original.
  const redactedValue = value === undefined || value === null ? value : placeholder(`${pointer}/value`, redacted);
  return Object.fromEntries(Object.keys(item).map((key) => [key, key === 'value' ? redactedValue : copy[key]]));
}

function redactMetadata(metadata: Record<string, Json>, pointer: string, redacted: string[]): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(metadata).map(([key, child]) => {
      const at = `${pointer}/${escapePointer(key)}`;
      if (key !== 'annotations' || !isRecord(child)) return [key, redactNode(child, at, redacted)];
      const annotations = Object.entries(child).map(([k, v]) => [k, isSecretAnnotation(k) ? placeholder(`${at}/${escapePointer(k)}`, redacted) : v]);
      return [key, Object.fromEntries(annotations)];
    }),
  );
}

/**
 * The exchange with its request redacted and its response rebuilt to match: a patch is applied to
 * the original object, the result redacted, and the patch re-computed against the redacted request
 * object (so a patch never carries a secret, and replaying the redacted request against the same
 * build yields the same patch). `rawStatus` is redacted by the same rules.
 */
export function redactExchange(exchange: RecordedExchange): RecordedExchange {
  const redacted: string[] = [];
  const request = redactValue(exchange.request, redacted, '/request');
  const response = exchange.response && redactResponse(exchange.request, request, exchange.response, redacted);
  return redacted.length > 0 ? { ...exchange, request, response, redacted } : { ...exchange, request, response };
}

function redactResponse(original: InterpreterContext, redactedRequest: InterpreterContext, envelope: InterpreterContext, redacted: string[]): InterpreterContext {
  const response = envelope.response;
  if (!response) return envelope;
  const copy = { ...response };
  if (copy.rawStatus !== undefined) copy.rawStatus = redactValue(copy.rawStatus, redacted, '/response/response/rawStatus');
  if (copy.patch && original.request?.object && redactedRequest.request?.object) {
    try {
      // Values the patch writes are not listed in `redacted`: they are inside the re-encoded patch.
      const patched = redactValue(applyPatch(original.request.object, decodePatch(copy.patch)));
      const ops = diff(redactedRequest.request.object, patched);
      if (ops.length > 0) copy.patch = encodePatch(ops);
      else {
        delete copy.patch;
        delete copy.patchType;
      }
    } catch {
      // Cannot happen for patches we computed; if it does, the patch may carry values: replace it with
      // one that fails loudly on replay rather than keep them.
      copy.patch = encodePatch([{ op: 'test', path: '', value: REDACTED }]);
      redacted.push('/response/response/patch');
    }
  }
  return { ...envelope, response: copy };
}
