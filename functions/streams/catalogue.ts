/**
 * The catalogue consumer: keeps derived catalogue items in step with the items they derive from
 * (shared/db/catalogue-stream.ts says which). Records of one item arrive in the order of its
 * changes; a failed record is reported so the mapping retries from it.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchItemFailure, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { applyCatalogueChange } from '../../shared/db/catalogue-stream.js';
import { logger } from '../../shared/log.js';

const image = (i: Record<string, unknown> | undefined) => (i ? unmarshall(i as Record<string, AttributeValue>) : undefined);

export async function handler(event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> {
  if (context) logger.addContext(context);
  // In order: a later change of an item must not be applied before an earlier one.
  for (const record of event.Records) {
    const d = record.dynamodb;
    if (!d?.Keys) continue;
    try {
      await applyCatalogueChange(unmarshall(d.Keys as Record<string, AttributeValue>), image(d.OldImage), image(d.NewImage));
    } catch (err) {
      logger.error('catalogue change not applied; the record will be retried', { error_name: (err as Error)?.name });
      const failures: DynamoDBBatchItemFailure[] = d.SequenceNumber ? [{ itemIdentifier: d.SequenceNumber }] : [];
      if (failures.length === 0) throw err;
      return { batchItemFailures: failures };
    }
  }
  return { batchItemFailures: [] };
}
