/**
 * How the stream consumers go through a batch: record by record, in order (a later change of an
 * item must not be applied before an earlier one). A record that fails is reported, so the
 * mapping retries from it (DynamoDBBatchResponse), with the records after it.
 *
 * Three kinds of failure, told apart because they need different answers:
 *  - **The table is unavailable** (throttling, 5xx, the network: the 503s of the API). The record
 *    is tried again in the same invocation, with growing waits, for as long as the function has
 *    more than OUTAGE_MARGIN_MS left; only then is it reported. An outage must be waited out, not
 *    counted against the mapping's few retries (docs/decisions.md X1).
 *  - **Contention** (Contended: the write lost every race against other writers of the same
 *    items). It is not an outage and waiting it out could last for ever if something keeps
 *    failing for a reason of its own (docs/decisions.md Z2): the record is tried CONTENTION_TRIES
 *    times in all, with short jittered waits, then reported like any other failure.
 *  - **Anything else** (a bug, a bad record) is reported at once.
 * A reported record is retried by the mapping `retryAttempts` times (functions/streams/
 * registry.ts), then given up to the consumer's failure destination, where an alarm shows it
 * (infra/aws/streams.ts; locally the poller's dead letters, infra/local/streams.ts).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchItemFailure, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { Item } from '../../shared/db/batch.js';
import { Contended, isUnavailable } from '../../shared/db/errors.js';
import { logger } from '../../shared/log.js';

export const image = (i: Record<string, unknown> | undefined) => (i ? unmarshall(i as Record<string, AttributeValue>) : undefined);

/** Time kept for reporting a record and returning, when the table stays unavailable. */
export const OUTAGE_MARGIN_MS = 10_000;
/** Waits between tries of a record while the table is unavailable: doubling from the first, at most the last. */
export const OUTAGE_WAIT_MS = { first: 200, most: 5_000 };
/** Tries of a record that keeps losing to other writers before it is reported, and the first wait between them (doubling). */
export const CONTENTION_TRIES = 3;
export const CONTENTION_WAIT_MS = 100;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms * (0.5 + Math.random() / 2)));

/**
 * Runs `run` as a consumer runs a record: again while the table is unavailable (time allowing)
 * or the write is contended (a few times), as the module comment says. False when it failed and
 * is to be reported (the error is logged).
 */
export async function tried(what: string, timeLeft: () => number, run: () => Promise<void>): Promise<boolean> {
  let outageWait = OUTAGE_WAIT_MS.first;
  let contended = 0;
  for (;;) {
    try {
      await run();
      return true;
    } catch (err) {
      if (isUnavailable(err) && timeLeft() - outageWait > OUTAGE_MARGIN_MS) {
        logger.warn(`${what}: the table is unavailable; trying the record again`, { error_name: (err as Error)?.name, wait_ms: outageWait });
        await sleep(outageWait);
        outageWait = Math.min(outageWait * 2, OUTAGE_WAIT_MS.most);
        continue;
      }
      if (err instanceof Contended && ++contended < CONTENTION_TRIES) {
        logger.warn(`${what}: the record's write kept losing to other writers; trying it again`, { tries: contended });
        await sleep(CONTENTION_WAIT_MS * 2 ** contended);
        continue;
      }
      logger.error(`${what} not applied; the record will be retried`, { error_name: (err as Error)?.name, error_message: (err as Error)?.message, stack: (err as Error)?.stack });
      return false;
    }
  }
}

/** A consumer's handler that applies each record's keys and images with `apply`. */
export function inOrder(what: string, apply: (keys: Item, before: Item | undefined, after: Item | undefined) => Promise<void>) {
  return async (event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => {
    if (context) logger.addContext(context);
    const timeLeft = () => context?.getRemainingTimeInMillis() ?? 0;
    for (const record of event.Records) {
      const d = record.dynamodb;
      if (!d?.Keys) continue;
      if (await tried(what, timeLeft, () => apply(unmarshall(d.Keys as Record<string, AttributeValue>), image(d.OldImage), image(d.NewImage)))) continue;
      const failures: DynamoDBBatchItemFailure[] = d.SequenceNumber ? [{ itemIdentifier: d.SequenceNumber }] : [];
      if (failures.length === 0) throw new Error(`${what}: a record without a sequence number failed`);
      return { batchItemFailures: failures };
    }
    return { batchItemFailures: [] };
  };
}
