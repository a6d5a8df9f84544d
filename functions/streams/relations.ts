/**
 * The relations consumer: keeps what derives from catalogue records in step with them — reverse
 * views, embedded names after a rename, references to deleted records (shared/domain/
 * catalogue-effects.ts). Records of one item arrive in the order of its changes; a failed
 * record is reported so the mapping retries from it.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchItemFailure, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { applyRecordEffects } from '../../shared/domain/catalogue-effects.js';
import { logger } from '../../shared/log.js';

const image = (i: Record<string, unknown> | undefined) => (i ? unmarshall(i as Record<string, AttributeValue>) : undefined);

export async function handler(event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> {
  if (context) logger.addContext(context);
  for (const record of event.Records) {
    const d = record.dynamodb;
    if (!d?.Keys) continue;
    const { pk } = unmarshall(d.Keys as Record<string, AttributeValue>) as { pk: string };
    const [kind, id, ...rest] = pk.split('#');
    if (!kind || !id || rest.length > 0) continue;
    try {
      await applyRecordEffects(kind, id, image(d.OldImage), image(d.NewImage));
    } catch (err) {
      logger.error('relation change not applied; the record will be retried', { error_name: (err as Error)?.name, kind });
      const failures: DynamoDBBatchItemFailure[] = d.SequenceNumber ? [{ itemIdentifier: d.SequenceNumber }] : [];
      if (failures.length === 0) throw err;
      return { batchItemFailures: failures };
    }
  }
  return { batchItemFailures: [] };
}
