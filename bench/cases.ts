// The requests the benchmark sends: recorded Karmada-shaped requests from test/fixtures/ (one per
// kind and operation: the largest request whose recorded answer is successful, so the interpreter does
// real work) and a large AggregateStatus with 50 member clusters built from a real CloneSet status item.
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { listExchangeFiles, readExchange } from '../src/record/format.ts';
import type { InterpreterContext } from '../src/protocol/wire.ts';

export interface BenchCase {
  /** Stable id, also the URL path suffix (/interpret/<id>) so the baseline answers a same-sized body. */
  id: string;
  /** "apps.kruise.io CloneSet" */
  target: string;
  operation: string;
  /** The fixture it came from (or how it was built). */
  source: string;
  /** The request as Karmada's Go client sends it: compact JSON. */
  body: string;
  /** Our recorded response, for the harness's own check and the baseline's response size. */
  expectedResponse: InterpreterContext;
  large: boolean;
}

const FIXTURES = 'test/fixtures';
export const LARGE_CLUSTER_COUNT = 50;

function caseId(target: string, operation: string, suffix = ''): string {
  return `${target.replace(/[^A-Za-z0-9]+/g, '-')}-${operation}${suffix}`.toLowerCase();
}

/** One case per (group, kind, operation) found under test/fixtures/. */
export async function fixtureCases(): Promise<BenchCase[]> {
  const chosen = new Map<string, BenchCase>();
  for (const file of await listExchangeFiles([FIXTURES])) {
    const exchange = await readExchange(file);
    if (!exchange.response?.response?.successful) continue;
    const request = exchange.request.request!;
    const target = `${basename(dirname(dirname(file)))} ${request.kind.kind}`;
    const body = JSON.stringify(exchange.request);
    const key = `${target} ${request.operation}`;
    const previous = chosen.get(key);
    if (previous && previous.body.length >= body.length) continue;
    chosen.set(key, {
      id: caseId(target, request.operation),
      target,
      operation: request.operation,
      source: file.slice(FIXTURES.length + 1),
      body,
      expectedResponse: exchange.response,
      large: false,
    });
  }
  return [...chosen.values()];
}

/**
 * AggregateStatus for a CloneSet propagated to 50 clusters: the first member status item of the
 * recorded CloneSet fixture, repeated with distinct cluster names and counters (so the sums are not
 * trivial) — what Karmada sends for a workload spread over a large fleet.
 */
export function largeAggregateCase(): BenchCase {
  const source = 'apps.kruise.io/CloneSet/AggregateStatus-two-members-one-unapplied.json';
  const exchange = JSON.parse(readFileSync(`${FIXTURES}/${source}`, 'utf8')) as { request: InterpreterContext };
  const request = structuredClone(exchange.request);
  const template = request.request!.aggregatedStatus!.find((item) => item.status)!;
  request.request!.aggregatedStatus = Array.from({ length: LARGE_CLUSTER_COUNT }, (_, i) => {
    const item = structuredClone(template);
    item.clusterName = `member-${String(i + 1).padStart(2, '0')}`;
    const replicas = 2 + (i % 5);
    Object.assign(item.status!, {
      replicas,
      readyReplicas: replicas - (i % 2),
      availableReplicas: replicas - (i % 2),
      updatedReplicas: replicas - (i % 3 === 0 ? 1 : 0),
      updatedReadyReplicas: replicas - 1,
      updatedAvailableReplicas: replicas - 1,
      expectedUpdatedReplicas: replicas,
    });
    return item;
  });
  request.request!.uid = '5f0c1f7e-50c1-4a7e-9c55-aggregate050';
  return {
    id: caseId('apps.kruise.io CloneSet', 'AggregateStatus', `-${LARGE_CLUSTER_COUNT}-clusters`),
    target: 'apps.kruise.io CloneSet',
    operation: `AggregateStatus (${LARGE_CLUSTER_COUNT} clusters)`,
    source: `${source}, first status item × ${LARGE_CLUSTER_COUNT}`,
    body: JSON.stringify(request),
    // Filled in by the harness from the first answer (there is no recording for this request).
    expectedResponse: {},
    large: true,
  };
}
