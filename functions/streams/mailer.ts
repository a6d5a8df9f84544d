/**
 * The mailer: the DynamoDB Streams consumer that delivers each outbox message as soon as it is
 * written (API.md §6: "normally within one minute"). Its event source mapping passes only the
 * INSERTs of outbox messages (functions/streams/registry.ts); anything else is ignored here too.
 *
 * A record whose delivery threw (the outbox could not be read or written) is reported in
 * `batchItemFailures`, so the mapping retries from that record rather than the whole batch. An
 * SES failure is not a record failure: it is recorded on the message, which the outbox job
 * retries with backoff (functions/jobs/outbox.ts).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchItemFailure, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { mapLimit } from '../../shared/concurrency.js';
import { isOutboxMessageKey } from '../../shared/db/outbox.js';
import { deliver } from '../../shared/email/deliver.js';
import { logger } from '../../shared/log.js';

/** Messages delivered at once (SES's default sending rate is 14 per second). */
const CONCURRENCY = 5;

/** The outbox message id of a record, or null when the record is not a new outbox message. */
export function outboxIdOf(record: DynamoDBRecord): string | null {
  if (record.eventName !== 'INSERT' || !record.dynamodb?.Keys) return null;
  const keys = unmarshall(record.dynamodb.Keys as Record<string, AttributeValue>);
  if (!isOutboxMessageKey(keys)) return null;
  return String(keys.pk).slice('OUTBOX#'.length);
}

export async function handler(event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> {
  if (context) logger.addContext(context);
  const failures: DynamoDBBatchItemFailure[] = [];
  await mapLimit(event.Records, CONCURRENCY, async (record) => {
    const id = outboxIdOf(record);
    if (id === null) return;
    try {
      await deliver(id);
    } catch (err) {
      logger.error('outbox message not handled; the record will be retried', { outbox_id: id, error_name: (err as Error)?.name });
      const sequence = record.dynamodb?.SequenceNumber;
      // Without a sequence number the record cannot be named: the whole batch is retried.
      if (!sequence) throw err;
      failures.push({ itemIdentifier: sequence });
    }
  });
  return { batchItemFailures: failures };
}
