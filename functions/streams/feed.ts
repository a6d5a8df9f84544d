/**
 * The change feed's sequencer (API.md §8.5; shared/db/feed.ts): its filter passes the changes
 * the catalogue's writes put (`FEED#P`), which come in commit order (one partition), and it
 * numbers them into entries, SEQUENCE_BATCH per transaction. A delivery of changes already
 * numbered (a retry) numbers only those still there, so each write has exactly one entry. A
 * transaction that fails is tried again as the other consumers try a record (in-order.ts), then
 * reported from its first change, so the mapping delivers it and the ones after it again.
 */
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { pendingOf, sequence, SEQUENCE_BATCH, type PendingChange } from '../../shared/db/feed.js';
import { logger } from '../../shared/log.js';
import { image, tried } from './in-order.js';

export async function handler(event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> {
  if (context) logger.addContext(context);
  const timeLeft = () => context?.getRemainingTimeInMillis() ?? 0;
  const changes: { change: PendingChange; id: string | undefined }[] = [];
  for (const record of event.Records) {
    const change = pendingOf(image(record.dynamodb?.NewImage));
    if (change) changes.push({ change, id: record.dynamodb?.SequenceNumber });
  }
  for (let i = 0; i < changes.length; i += SEQUENCE_BATCH) {
    const batch = changes.slice(i, i + SEQUENCE_BATCH);
    if (await tried('change feed', timeLeft, async () => void (await sequence(batch.map((c) => c.change))))) continue;
    if (!batch[0]!.id) throw new Error('change feed: a change without a sequence number failed');
    return { batchItemFailures: [{ itemIdentifier: batch[0]!.id }] };
  }
  return { batchItemFailures: [] };
}
