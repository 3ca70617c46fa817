// AggregateStatus for Argo Workflow: the template's status from the reflected member statuses.
// Karmada writes the result with UpdateStatus, which needs the status subresource on the Workflow CRD in
// karmada-apiserver (see README.md); without it the write fails and the template status stays empty.
import { type AggregatedStatusItem, isJsonObject, type JsonObject, type KObject } from '../../../../src/interpreter/types.ts';

/** Fields of a single member's reflected status that are real Workflow status fields. */
const SINGLE_CLUSTER_FIELDS = ['startedAt', 'finishedAt', 'estimatedDuration', 'progress', 'message', 'conditions', 'outputs', 'resourcesDuration'] as const;
const COMPLETED_PHASES = new Set(['Succeeded', 'Failed', 'Error']);

interface MemberRun {
  cluster: string;
  phase: string;
  status: JsonObject;
  /** Why there is no status (Karmada's appliedMessage for an item that failed to apply). */
  appliedMessage?: string;
}

function memberRun(item: AggregatedStatusItem): MemberRun {
  const status = isJsonObject(item.status) ? item.status : {};
  return {
    cluster: item.clusterName,
    phase: typeof status.phase === 'string' ? status.phase : '',
    status,
    appliedMessage: item.appliedMessage || undefined,
  };
}

/** Any Running → Running; else any Pending → Pending; else any not finished → ""; else Error > Failed > Succeeded. */
function combinedPhase(phases: string[]): string {
  if (phases.includes('Running')) return 'Running';
  if (phases.includes('Pending')) return 'Pending';
  if (!phases.every((phase) => COMPLETED_PHASES.has(phase))) return '';
  if (phases.includes('Error')) return 'Error';
  if (phases.includes('Failed')) return 'Failed';
  return 'Succeeded';
}

/** The earliest (or latest) of the RFC 3339 timestamps present, in its original spelling. */
function extremeTime(values: unknown[], pick: 'earliest' | 'latest'): string | undefined {
  let best: { text: string; time: number } | undefined;
  for (const value of values) {
    if (typeof value !== 'string') continue;
    const time = Date.parse(value);
    if (Number.isNaN(time)) continue;
    if (!best || (pick === 'earliest' ? time < best.time : time > best.time)) best = { text: value, time };
  }
  return best?.text;
}

/** Argo's `Progress.Add`: completed and total tasks summed ("3/5" + "2/5" = "5/10"). */
function sumProgress(values: unknown[]): string | undefined {
  let done = 0;
  let total = 0;
  let any = false;
  for (const value of values) {
    const match = typeof value === 'string' ? /^(\d+)\/(\d+)$/.exec(value) : null;
    if (!match) continue;
    done += Number(match[1]);
    total += Number(match[2]);
    any = true;
  }
  return any ? `${done}/${total}` : undefined;
}

/** Resource usage (resource name → seconds) of every run, added up. */
function sumResourcesDuration(values: unknown[]): Record<string, number> | undefined {
  const sum: Record<string, number> = {};
  let any = false;
  for (const value of values) {
    if (!isJsonObject(value)) continue;
    for (const [resource, seconds] of Object.entries(value)) {
      if (typeof seconds !== 'number') continue;
      sum[resource] = (sum[resource] ?? 0) + seconds;
      any = true;
    }
  }
  return any ? sum : undefined;
}

function singleClusterStatus(run: MemberRun): JsonObject {
  const status: JsonObject = {};
  if (run.phase !== '') status.phase = run.phase;
  for (const field of SINGLE_CLUSTER_FIELDS) if (run.status[field] !== undefined && run.status[field] !== null) status[field] = run.status[field];
  return status;
}

/** Several runs (a Duplicated placement, or a failover in progress), or one that has not reported yet. */
function multiClusterStatus(runs: MemberRun[]): JsonObject {
  const status: JsonObject = {};
  const phase = combinedPhase(runs.map((run) => run.phase));
  const allCompleted = runs.every((run) => COMPLETED_PHASES.has(run.phase));
  if (phase !== '') status.phase = phase;
  const startedAt = extremeTime(
    runs.map((run) => run.status.startedAt),
    'earliest',
  );
  if (startedAt) status.startedAt = startedAt;
  const finishedAt = allCompleted
    ? extremeTime(
        runs.map((run) => run.status.finishedAt),
        'latest',
      )
    : undefined;
  if (finishedAt) status.finishedAt = finishedAt;
  const progress = sumProgress(runs.map((run) => run.status.progress));
  if (progress) status.progress = progress;
  const messages = runs
    .filter((run) => run.phase !== 'Succeeded')
    .map((run) => {
      const message = typeof run.status.message === 'string' && run.status.message !== '' ? run.status.message : run.appliedMessage;
      return message ? `${run.cluster}: ${message}` : undefined;
    })
    .filter((message): message is string => message !== undefined);
  if (messages.length > 0) status.message = messages.join('; ');
  status.conditions = [{ type: 'Completed', status: allCompleted ? 'True' : 'False' }];
  const resourcesDuration = sumResourcesDuration(runs.map((run) => run.status.resourcesDuration));
  if (resourcesDuration) status.resourcesDuration = resourcesDuration;
  return status;
}

/**
 * 0 items → status unchanged. 1 item with a status (the recommended one-cluster placement) → that run's
 * summary, outputs included. Otherwise phase, times, progress, message and a Completed condition are
 * combined across runs; outputs are left out (which run's would they be?).
 */
export function aggregateStatus(workflow: KObject, items: AggregatedStatusItem[] | undefined): KObject {
  if (!items || items.length === 0) return workflow;
  const runs = items.map(memberRun);
  const single = items.length === 1 && isJsonObject(items[0]!.status);
  workflow.status = single ? singleClusterStatus(runs[0]!) : multiClusterStatus(runs);
  return workflow;
}
