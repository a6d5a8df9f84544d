/**
 * How the stream consumers go through a batch: record by record, in order (a later change of an
 * item must not be applied before an earlier one). A record that fails is reported, with the
 * records after it, so the mapping retries from it (DynamoDBBatchResponse).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchItemFailure, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { Item } from '../../shared/db/batch.js';
import { logger } from '../../shared/log.js';

const image = (i: Record<string, unknown> | undefined) => (i ? unmarshall(i as Record<string, AttributeValue>) : undefined);

/** A consumer's handler that applies each record's keys and images with `apply`. */
export function inOrder(what: string, apply: (keys: Item, before: Item | undefined, after: Item | undefined) => Promise<void>) {
  return async (event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => {
    if (context) logger.addContext(context);
    for (const record of event.Records) {
      const d = record.dynamodb;
      if (!d?.Keys) continue;
      try {
        await apply(unmarshall(d.Keys as Record<string, AttributeValue>), image(d.OldImage), image(d.NewImage));
      } catch (err) {
        logger.error(`${what} not applied; the record will be retried`, { error_name: (err as Error)?.name });
        const failures: DynamoDBBatchItemFailure[] = d.SequenceNumber ? [{ itemIdentifier: d.SequenceNumber }] : [];
        if (failures.length === 0) throw err;
        return { batchItemFailures: failures };
      }
    }
    return { batchItemFailures: [] };
  };
}
