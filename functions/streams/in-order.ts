/**
 * How the stream consumers go through a batch: record by record, in order (a later change of an
 * item must not be applied before an earlier one). A record that fails is reported, with the
 * records after it, so the mapping retries from it (DynamoDBBatchResponse).
 *
 * A record that fails because the table is unavailable (throttling, 5xx, the network: the 503s
 * of the API) is tried again in the same invocation, with growing waits, for as long as the
 * function has more than OUTAGE_MARGIN_MS left; only then is it reported. The mapping retries a
 * reported record a few times (functions/streams/registry.ts `retryAttempts`) and then gives it
 * up, and what these consumers derive from a given-up record stays wrong (a taxonomy's ordering
 * entries are moved from the record's old image to its new one): an outage of the table must
 * be waited out, not counted against those retries (docs/decisions.md X1). Any other error is
 * reported at once.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchItemFailure, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { Item } from '../../shared/db/batch.js';
import { isUnavailable } from '../../shared/db/errors.js';
import { HttpError } from '../../shared/http/problem.js';
import { logger } from '../../shared/log.js';

const image = (i: Record<string, unknown> | undefined) => (i ? unmarshall(i as Record<string, AttributeValue>) : undefined);

/** Time kept for reporting a record and returning, when the table stays unavailable. */
export const OUTAGE_MARGIN_MS = 10_000;
/** Waits between tries of a record while the table is unavailable: doubling from the first, at most the last. */
export const OUTAGE_WAIT_MS = { first: 200, most: 5_000 };

/** An error that says the table (or a dependency) is unavailable right now, as a 503 would. */
const unavailable = (err: unknown) => isUnavailable(err) || (err instanceof HttpError && err.type === 'service-unavailable');

/** A consumer's handler that applies each record's keys and images with `apply`. */
export function inOrder(what: string, apply: (keys: Item, before: Item | undefined, after: Item | undefined) => Promise<void>) {
  return async (event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => {
    if (context) logger.addContext(context);
    const timeLeft = () => context?.getRemainingTimeInMillis() ?? 0;
    for (const record of event.Records) {
      const d = record.dynamodb;
      if (!d?.Keys) continue;
      for (let wait = OUTAGE_WAIT_MS.first; ; wait = Math.min(wait * 2, OUTAGE_WAIT_MS.most)) {
        try {
          await apply(unmarshall(d.Keys as Record<string, AttributeValue>), image(d.OldImage), image(d.NewImage));
          break;
        } catch (err) {
          if (unavailable(err) && timeLeft() - wait > OUTAGE_MARGIN_MS) {
            logger.warn(`${what}: the table is unavailable; trying the record again`, { error_name: (err as Error)?.name, wait_ms: wait });
            await new Promise((r) => setTimeout(r, wait * (0.5 + Math.random() / 2)));
            continue;
          }
          logger.error(`${what} not applied; the record will be retried`, { error_name: (err as Error)?.name });
          const failures: DynamoDBBatchItemFailure[] = d.SequenceNumber ? [{ itemIdentifier: d.SequenceNumber }] : [];
          if (failures.length === 0) throw err;
          return { batchItemFailures: failures };
        }
      }
    }
    return { batchItemFailures: [] };
  };
}
