// Redaction of recorded exchanges (`serve --record` without `--record-keep-secrets`). What is
// redacted is listed in docs/recording.md; keep the two in step.
//
// Every redacted value is replaced by one fixed placeholder string, never removed: the recorded
// request keeps its shape (a Retain still copies a value, a container still has an env entry), and
// the recorded response is rebuilt against the redacted request (see redactExchange), so replaying
// a redacted file compares like with like instead of reporting the redaction as a change.
import { applyPatch, decodePatch, diff, encodePatch } from '../protocol/patch.ts';
import type { InterpreterContext, InterpreterResponse } from '../protocol/wire.ts';
import type { RecordedExchange } from './format.ts';

export const REDACTED = '<redacted by karmada-interpreter record>';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Words that make an annotation key look like it holds a secret (matched as whole words of the key). */
export const SECRET_WORDS: readonly string[] = [
  'token',
  'tokens',
  'password',
  'passwords',
  'passwd',
  'secret',
  'secrets',
  'key',
  'keys',
  'apikey',
  'privatekey',
  'credential',
  'credentials',
  'creds',
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

/** What one redaction found: the pointers it replaced and the string values it took out. */
interface Findings {
  pointers: string[];
  secrets: Set<string>;
}

/**
 * Secrets shorter than this are not searched for inside longer strings (status messages): a value such
 * as "1" or "on" would otherwise take out every occurrence of those letters. Equal copies of any
 * length are replaced.
 */
export const MIN_EMBEDDED_SECRET_LENGTH = 4;

/**
 * A deep copy of `value` with every redaction rule applied, wherever the shapes occur. The JSON
 * Pointer (RFC 6901) of every replaced value is appended to `redacted` when given.
 */
export function redactValue<T>(value: T, redacted?: string[], pointer = ''): T {
  return redactNode(value, pointer, { pointers: redacted ?? [], secrets: new Set() }) as T;
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function redactNode(node: Json, pointer: string, found: Findings): Json {
  if (Array.isArray(node)) return node.map((item, i) => redactNode(item, `${pointer}/${i}`, found));
  if (!isRecord(node)) return node;
  const secretShaped = node.kind === 'Secret';
  // Object.fromEntries, not assignment: a "__proto__" key in a request must stay an ordinary key.
  return Object.fromEntries(
    Object.entries(node).map(([key, child]) => {
      const at = `${pointer}/${escapePointer(key)}`;
      if (secretShaped && (key === 'data' || key === 'stringData') && isRecord(child)) return [key, redactAllValues(child, at, found)];
      if (key === 'env' && Array.isArray(child)) return [key, child.map((item, i) => redactEnvVar(item, `${at}/${i}`, found))];
      if (key === 'metadata' && isRecord(child)) return [key, redactMetadata(child, at, found)];
      return [key, redactNode(child, at, found)];
    }),
  );
}

function placeholder(value: Json, at: string, found: Findings): string {
  found.pointers.push(at);
  if (typeof value === 'string' && value !== '' && value !== REDACTED) found.secrets.add(value);
  return REDACTED;
}

function redactAllValues(map: Record<string, Json>, pointer: string, found: Findings): Record<string, Json> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, placeholder(v, `${pointer}/${escapePointer(k)}`, found)]));
}

/** A container env entry `{name, value}`: the value goes, `valueFrom` (a reference) stays. */
function redactEnvVar(item: Json, pointer: string, found: Findings): Json {
  if (!isRecord(item) || typeof item.name !== 'string') return redactNode(item, pointer, found);
  const { value, ...rest } = item;
  const copy = redactNode(rest, pointer, found) as Record<string, Json>;
  if (!('value' in item)) return copy;
  // Keep the entry's key order (name, value, ...) so the file reads like the original.
  const redactedValue = value === undefined || value === null ? value : placeholder(value, `${pointer}/value`, found);
  return Object.fromEntries(Object.keys(item).map((key) => [key, key === 'value' ? redactedValue : copy[key]]));
}

function redactMetadata(metadata: Record<string, Json>, pointer: string, found: Findings): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(metadata).map(([key, child]) => {
      const at = `${pointer}/${escapePointer(key)}`;
      if (key !== 'annotations' || !isRecord(child)) return [key, redactNode(child, at, found)];
      const annotations = Object.entries(child).map(([k, v]) => [k, isSecretAnnotation(k) ? placeholder(v, `${at}/${escapePointer(k)}`, found) : v]);
      return [key, Object.fromEntries(annotations)];
    }),
  );
}

/** A copy of `node` with every string equal to a found secret replaced (a value copied elsewhere). */
function redactCopies(node: Json, pointer: string, found: Findings): Json {
  if (found.secrets.size === 0) return node;
  if (typeof node === 'string') return found.secrets.has(node) ? placeholder(node, pointer, found) : node;
  if (Array.isArray(node)) return node.map((item, i) => redactCopies(item, `${pointer}/${i}`, found));
  if (!isRecord(node)) return node;
  return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, redactCopies(child, `${pointer}/${escapePointer(key)}`, found)]));
}

/** `text` with every found secret (of MIN_EMBEDDED_SECRET_LENGTH or more) inside it replaced. */
function redactEmbedded(text: string, pointer: string, found: Findings): string {
  let result = text;
  for (const secret of found.secrets) {
    if (secret.length >= MIN_EMBEDDED_SECRET_LENGTH && result.includes(secret)) result = result.split(secret).join(REDACTED);
  }
  if (result !== text) found.pointers.push(pointer);
  return result;
}

/**
 * The exchange with its secrets taken out, wherever they went:
 * - the request is redacted by the rules above (shape), and `rawStatus` likewise;
 * - every string anywhere in the file equal to a value so replaced (a copy: an env value a Retain
 *   wrote into another field, an annotation an InterpretStatus returned) is replaced too, and a
 *   refused answer's message has such values cut out of it;
 * - a patch is applied to the original object, the result redacted in the same two ways, and the
 *   patch re-computed against the redacted request object, so it never carries a secret and replaying
 *   the redacted request against the same build yields the same patch. When the rebuilt patch writes a
 *   placeholder, `/response/response/patch` is listed in `redacted`.
 */
export function redactExchange(exchange: RecordedExchange): RecordedExchange {
  const found: Findings = { pointers: [], secrets: new Set() };
  const shaped = redactNode(exchange.request, '/request', found) as InterpreterContext;
  const envelope = exchange.response;
  const response = envelope?.response;
  const rawStatus = response?.rawStatus !== undefined ? redactNode(response.rawStatus, '/response/response/rawStatus', found) : undefined;

  // The patched object is redacted before any copy is looked for, so values the patch itself puts at a
  // secret position count as secrets too. Its pointers are not the file's: they go nowhere.
  const patchFindings: Findings = { pointers: [], secrets: found.secrets };
  let patched: { object: Json } | 'failed' | undefined;
  if (response?.patch && exchange.request.request?.object && shaped.request?.object) {
    try {
      patched = { object: redactNode(applyPatch(exchange.request.request.object, decodePatch(response.patch)), '', patchFindings) };
    } catch {
      patched = 'failed';
    }
  }

  const request = redactRequestCopies(shaped, found);
  const redactedResponse =
    envelope && response ? { ...envelope, response: redactResponse(response, rawStatus, request, patched, found, patchFindings) } : envelope;
  return found.pointers.length > 0
    ? { ...exchange, request, response: redactedResponse, redacted: found.pointers }
    : { ...exchange, request, response: redactedResponse };
}

/** Copies are looked for in the objects a request carries, not in its uid, kind, operation or names. */
const REQUEST_DATA_FIELDS = ['object', 'observedObject', 'aggregatedStatus'] as const;

function redactRequestCopies(context: InterpreterContext, found: Findings): InterpreterContext {
  const request = context.request;
  if (!request || found.secrets.size === 0) return context;
  const copy: Record<string, unknown> = { ...request };
  for (const field of REQUEST_DATA_FIELDS) {
    if (copy[field] !== undefined) copy[field] = redactCopies(copy[field], `/request/request/${field}`, found);
  }
  return { ...context, request: copy as unknown as InterpreterContext['request'] };
}

function redactResponse(
  response: InterpreterResponse,
  rawStatus: Json,
  redactedRequest: InterpreterContext,
  patched: { object: Json } | 'failed' | undefined,
  found: Findings,
  patchFindings: Findings,
): InterpreterResponse {
  const { patch, patchType, uid, successful, ...rest } = response;
  const at = '/response/response';
  const data = redactCopies(rawStatus === undefined ? rest : { ...rest, rawStatus }, at, found) as Partial<InterpreterResponse>;
  // uid and successful first, as the envelope had them.
  const copy = { uid, successful, ...data } as InterpreterResponse;
  if (typeof copy.status?.message === 'string') {
    copy.status = { ...copy.status, message: redactEmbedded(copy.status.message, `${at}/status/message`, found) };
  }
  if (patched === undefined) {
    // Not rebuilt (no request object to apply it to): keep it as it was.
    return patch === undefined ? copy : { ...copy, patch, patchType };
  }
  if (patched === 'failed') {
    // Cannot happen for patches we computed; if it does, the patch may carry values: replace it with
    // one that fails loudly on replay rather than keep them.
    found.pointers.push(`${at}/patch`);
    return { ...copy, patch: encodePatch([{ op: 'test', path: '', value: REDACTED }]), patchType };
  }
  const ops = diff(redactedRequest.request!.object, redactCopies(patched.object, '', patchFindings) as Record<string, unknown>);
  if (ops.length === 0) return copy;
  if (JSON.stringify(ops).includes(JSON.stringify(REDACTED))) found.pointers.push(`${at}/patch`);
  return { ...copy, patch: encodePatch(ops), patchType };
}
