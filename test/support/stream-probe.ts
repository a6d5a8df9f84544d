/**
 * A stream consumer for the stream poller's tests: it records every event it gets and reports as
 * failed the records the test asks for (`probe.fail`: item pk → failures still to report).
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';

export interface Probe {
  events: DynamoDBStreamEvent[];
  fail: Map<string, number>;
  /** Throw instead of reporting (the whole batch fails). */
  throwOnce: boolean;
}

const g = globalThis as { __streamProbe?: Probe };
export const probe: Probe = (g.__streamProbe ??= { events: [], fail: new Map(), throwOnce: false });

export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  probe.events.push(structuredClone(event));
  if (probe.throwOnce) {
    probe.throwOnce = false;
    throw new Error('probe failure');
  }
  const failures = [];
  for (const r of event.Records) {
    const pk = r.dynamodb?.Keys?.pk?.S ?? '';
    const left = probe.fail.get(pk) ?? 0;
    if (left > 0) {
      probe.fail.set(pk, left - 1);
      failures.push({ itemIdentifier: r.dynamodb!.SequenceNumber! });
    }
  }
  return { batchItemFailures: failures };
}
