// The caller's side, as Karmada's webhook client does it (spec §2): build the request envelope,
// POST it over HTTPS with ?timeout=, verify the response per operation, apply the patch. Used by
// `conformance`, `replay --url` and the end-to-end tests, so we judge ourselves the way Karmada will.
import { randomUUID } from 'node:crypto';
import { Agent, request as httpsRequest } from 'node:https';
import type { InterpretInput } from '../interpreter/dispatch.ts';
import { dependenciesProblem } from '../interpreter/validate.ts';
import type { CaseResults } from '../testcases/cases.ts';
import { applyPatch, decodePatch } from './patch.ts';
import { CONTEXT_API_VERSION, CONTEXT_KIND, type InterpreterContext, type InterpreterRequest } from './wire.ts';

export function karmadaRequest(input: InterpretInput, uid: string = randomUUID()): InterpreterContext {
  const [group, version] = input.apiVersion.includes('/') ? input.apiVersion.split('/') : ['', input.apiVersion];
  // Field order as Go encodes ResourceInterpreterRequest.
  const request: InterpreterRequest = {
    uid,
    kind: { group: group!, version: version!, kind: input.kind },
    name: input.object.metadata?.name ?? '',
    ...(input.object.metadata?.namespace ? { namespace: input.object.metadata.namespace } : {}),
    operation: input.operation,
    object: input.object,
    ...(input.operation === 'Retain' && input.observedObject ? { observedObject: input.observedObject } : {}),
    // Karmada always sets the pointer: 0 unless ReviseReplica.
    replicas: input.operation === 'ReviseReplica' ? (input.replicas ?? 0) : 0,
  };
  // []AggregatedStatusItem has omitempty: an empty list is not sent at all.
  if (input.operation === 'AggregateStatus' && input.aggregatedStatus && input.aggregatedStatus.length > 0) {
    request.aggregatedStatus = input.aggregatedStatus;
  }
  return { kind: CONTEXT_KIND, apiVersion: CONTEXT_API_VERSION, request };
}

export interface ClientOptions {
  ca?: string;
  /** TLS server name to verify (Karmada uses <svc>.<ns>.svc for service references). */
  servername?: string;
  timeoutSeconds?: number;
  /** Sent with every request besides Karmada's own headers (e.g. `replay --url`'s replay marker). */
  headers?: Record<string, string>;
}

export class WebhookClient {
  private readonly agent: Agent;
  private readonly url: URL;

  private readonly options: ClientOptions;

  constructor(url: string, options: ClientOptions = {}) {
    this.options = options;
    this.url = new URL(url);
    // Keep-alive and HTTP/1.1, like Go's transport that Karmada uses.
    this.agent = new Agent({ keepAlive: true, maxSockets: 8, ca: options.ca, servername: options.servername, ALPNProtocols: ['http/1.1'] });
  }

  post(body: string): Promise<{ status: number; text: string }> {
    const url = new URL(this.url);
    url.searchParams.set('timeout', `${this.options.timeoutSeconds ?? 30}s`);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            ...this.options.headers,
            'Content-Type': 'application/json',
            Accept: 'application/json, */*',
            'User-Agent': 'kube-apiserver-admission',
          },
          timeout: (this.options.timeoutSeconds ?? 30) * 1000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('request timed out')));
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Sends a request and returns the verified response envelope, or throws Karmada's kind of error. */
  async call(context: InterpreterContext): Promise<InterpreterContext> {
    const { status, text } = await this.post(JSON.stringify(context) + '\n');
    if (status < 200 || status > 206) throw new Error(`failed to call webhook: HTTP ${status}: ${text.slice(0, 200)}`);
    if (text.length === 0) throw new Error('failed to call webhook: 0-length response');
    let body: InterpreterContext;
    try {
      body = JSON.parse(text) as InterpreterContext;
    } catch (error) {
      throw new Error(`failed to decode webhook response: ${(error as Error).message}`, { cause: error });
    }
    const problem = verifyResponse(context.request!, body);
    if (problem) throw new Error(problem);
    return body;
  }

  close(): void {
    this.agent.destroy();
  }
}

const PATCH_OPERATIONS = new Set(['ReviseReplica', 'Retain', 'AggregateStatus', 'Prune']);

/** Karmada's VerifyResourceInterpreterContext (spec §2.7), plus the decoding rules of §1.6. */
export function verifyResponse(request: InterpreterRequest, body: InterpreterContext): string | undefined {
  if (body.apiVersion !== undefined && body.apiVersion !== CONTEXT_API_VERSION) return `unexpected apiVersion ${body.apiVersion}`;
  if (body.kind !== undefined && body.kind !== CONTEXT_KIND) return `unexpected kind ${body.kind}`;
  const response = body.response;
  if (!response) return 'webhook response was absent';
  if (response.uid !== request.uid) return `expected response.uid ${JSON.stringify(request.uid)}, got ${JSON.stringify(response.uid)}`;
  if (response.successful !== true) {
    if (!response.status) return 'webhook response status was absent';
    return `webhook call failed, get status code: ${response.status.code}, msg: ${response.status.message}`;
  }
  switch (request.operation) {
    case 'InterpretReplica':
      if (response.replicas === undefined || response.replicas === null) return 'webhook returned nil response.replicas';
      if (!Number.isInteger(response.replicas)) return `response.replicas ${response.replicas} is not an int32`;
      return undefined;
    case 'InterpretDependency':
      return response.dependencies ? dependenciesProblem(response.dependencies) : undefined;
    case 'InterpretStatus':
      return response.rawStatus === undefined || response.rawStatus === null ? 'webhook returned nil response.rawStatus' : undefined;
    case 'InterpretHealth':
      return response.healthy === undefined || response.healthy === null ? 'webhook returned nil response.healthy' : undefined;
    default:
      if (!PATCH_OPERATIONS.has(request.operation)) return undefined;
      if (!response.patch && !response.patchType) return undefined;
      if (!response.patchType) return 'webhook returned nil response.patchType';
      if (!response.patch) return 'webhook returned empty response.patch';
      if (response.patchType !== 'JSONPatch') return `webhook returned invalid response.patchType ${response.patchType}`;
      if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(response.patch)) return 'response.patch is not standard padded base64';
      return undefined;
  }
}

/** What Karmada ends up with after a verified response, keyed like Karmada's test harness. */
export function resultsFromResponse(request: InterpreterRequest, body: InterpreterContext): CaseResults {
  const response = body.response!;
  const patched = () => {
    const object = response.patch ? applyPatch(request.object, decodePatch(response.patch)) : structuredClone(request.object);
    if (typeof object.kind !== 'string' || object.kind === '') throw new Error("Object 'Kind' is missing after applying the patch");
    return object;
  };
  switch (request.operation) {
    case 'Retain':
      return { retained: patched() };
    case 'ReviseReplica':
      return { revised: patched() };
    case 'AggregateStatus':
      return { aggregatedStatus: patched() };
    case 'InterpretReplica':
      return response.replicaRequirements ? { replica: response.replicas, requires: response.replicaRequirements } : { replica: response.replicas };
    case 'InterpretComponent':
      return { components: response.components ?? [] };
    case 'InterpretDependency':
      return { dependencies: response.dependencies ?? [] };
    case 'InterpretStatus':
      return { status: response.rawStatus };
    case 'InterpretHealth':
      return { healthy: response.healthy };
    default:
      return {};
  }
}
