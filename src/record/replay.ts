// Replays recorded exchanges against the current build (in process, through handleExchange exactly
// as the server answers) or a running server (over HTTPS, as Karmada's client sends), and compares
// each new response with the recorded one semantically (src/record/response-comparison.ts).
import type { Registry } from '../interpreter/registry.ts';
import { handleExchange } from '../protocol/exchange.ts';
import { WebhookClient, verifyResponse } from '../protocol/karmada-client.ts';
import type { InterpreterContext, InterpreterRequest } from '../protocol/wire.ts';
import { compareResponses, type Difference } from './response-comparison.ts';
import { readExchange, REPLAY_HEADER, writeExchange } from './format.ts';

/** Where a recorded request is sent again. */
export interface ReplayTarget {
  send(context: InterpreterContext): Promise<InterpreterContext>;
  close(): void;
}

/** The current build in this process, through the same handleExchange the server uses. */
export function inProcessTarget(registry: Registry): ReplayTarget {
  return {
    async send(context) {
      const exchange = await handleExchange(registry, { body: JSON.stringify(context), contentType: 'application/json' });
      return exchange.response;
    },
    close() {},
  };
}

/**
 * A running server, called like Karmada's webhook client (HTTPS, ?timeout=, keep-alive), plus
 * REPLAY_HEADER so that a server recording its traffic does not record the replay.
 */
export function urlTarget(url: string, options: { ca?: string; timeoutSeconds?: number } = {}): ReplayTarget {
  const client = new WebhookClient(url, {
    ca: options.ca,
    timeoutSeconds: options.timeoutSeconds ?? 30,
    headers: { [REPLAY_HEADER]: 'true' },
  });
  return {
    async send(context) {
      const { status, text } = await client.post(JSON.stringify(context) + '\n');
      if (status !== 200) throw new Error(`${url} answered HTTP ${status}: ${text.slice(0, 200)}`);
      try {
        return JSON.parse(text) as InterpreterContext;
      } catch (error) {
        throw new Error(`${url} answered something that is not JSON: ${(error as Error).message}`, { cause: error });
      }
    },
    close: () => client.close(),
  };
}

export type ReplayStatus = 'unchanged' | 'changed' | 'updated' | 'error';

export interface ReplayResult {
  file: string;
  status: ReplayStatus;
  /** "apps.kruise.io/v1alpha1 CloneSet Retain shop/web", when the file could be read. */
  subject?: string;
  differences: Difference[];
  error?: string;
  /**
   * How many values of the recording were redacted. A change in such an exchange may come from the
   * redaction itself (e.g. a hash over env values), not from the build: re-record with secrets to tell.
   */
  redactedValues?: number;
}

export function describeRequest(request: InterpreterRequest): string {
  const gvk = request.kind;
  const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
  const name = request.namespace ? `${request.namespace}/${request.name ?? ''}` : (request.name ?? '');
  return `${apiVersion} ${gvk.kind} ${request.operation} ${name}`.trim();
}

/**
 * Replays one file. A recorded response that is missing (a fixture not recorded yet) is a change.
 * With `update`, a changed file gets the new response written in place (status "updated").
 */
export async function replayFile(file: string, target: ReplayTarget, options: { update?: boolean } = {}): Promise<ReplayResult> {
  let subject: string | undefined;
  try {
    const recorded = await readExchange(file);
    const request = recorded.request.request!;
    subject = describeRequest(request);
    const redactedValues = recorded.redacted?.length ? { redactedValues: recorded.redacted.length } : {};
    const replayed = await target.send(recorded.request);
    const differences: Difference[] =
      recorded.response === null ? [{ path: '(response)', old: undefined, new: replayed.response }] : compareResponses(request, recorded.response, replayed);
    const rejection = replayed.response?.successful === true ? verifyResponse(request, replayed) : undefined;
    if (rejection) differences.push({ path: '(Karmada would reject the new response)', old: undefined, new: rejection });
    if (differences.length === 0) return { file, subject, status: 'unchanged', differences, ...redactedValues };
    if (options.update) {
      await writeExchange(file, { ...recorded, response: replayed });
      return { file, subject, status: 'updated', differences, ...redactedValues };
    }
    return { file, subject, status: 'changed', differences, ...redactedValues };
  } catch (error) {
    return { file, subject, status: 'error', differences: [], error: (error as Error).message };
  }
}

export interface ReplaySummary {
  results: ReplayResult[];
  unchanged: number;
  changed: number;
  updated: number;
  errors: number;
}

export async function replayFiles(files: string[], target: ReplayTarget, options: { update?: boolean } = {}): Promise<ReplaySummary> {
  const results: ReplayResult[] = [];
  // One at a time: the output follows the sorted file order, and a live server is not flooded.
  for (const file of files) results.push(await replayFile(file, target, options));
  const count = (status: ReplayStatus) => results.filter((r) => r.status === status).length;
  return { results, unchanged: count('unchanged'), changed: count('changed'), updated: count('updated'), errors: count('error') };
}
