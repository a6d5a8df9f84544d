/**
 * A stream consumer for the stream poller's tests: it records every event it gets and reports as
 * failed the records the test asks for (`probe.fail`: item pk → failures still to report). Every
 * consumer declared with this module shares the probe; `calls` keeps which one (the function
 * name the poller gives it, `stream.<consumer>`) was invoked, and `hold` makes one of them wait.
 */
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';

export interface Probe {
  events: DynamoDBStreamEvent[];
  /** The function name of each invocation, in the order of `events`. */
  calls: string[];
  fail: Map<string, number>;
  /** Throw instead of reporting (the whole batch fails). */
  throwOnce: boolean;
  /** Function name → a promise its invocations wait for before they return. */
  hold: Map<string, Promise<void>>;
}

const g = globalThis as { __streamProbe?: Probe };
export const probe: Probe = (g.__streamProbe ??= { events: [], calls: [], fail: new Map(), throwOnce: false, hold: new Map() });

export async function handler(event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> {
  const name = context?.functionName ?? '';
  probe.events.push(structuredClone(event));
  probe.calls.push(name);
  await probe.hold.get(name);
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
