/**
 * The index compactor's stream trigger (issue 19; shared/domain/index-compaction.ts): its filter
 * passes the index deltas (`<KIND>#IX` / `D#<n>`), and every COMPACT_EVERY-th delta of a kind
 * folds the kind's deltas into its next snapshot, so that a function starting afresh reads at
 * most about that many deltas after loading the snapshot. The scheduled job of the same name
 * folds what is left between (functions/jobs/index-compaction.ts). A failed compaction throws:
 * the mapping retries the batch, then gives it up to the failure queue; the next trigger or run
 * folds the same deltas (compaction is idempotent).
 */
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { COMPACT_EVERY, compactIndex } from '../../shared/domain/index-compaction.js';
import { INDEXED } from '../../shared/domain/index-kinds.js';
import { logger } from '../../shared/log.js';

export async function handler(event: DynamoDBStreamEvent, context?: Context): Promise<void> {
  if (context) logger.addContext(context);
  const due = new Set<string>();
  for (const record of event.Records) {
    const pk = record.dynamodb?.Keys?.pk?.S ?? '';
    const sk = record.dynamodb?.Keys?.sk?.S ?? '';
    const kind = pk.replace(/#IX$/, '');
    if (INDEXED[kind] && Number(sk.slice(2)) % COMPACT_EVERY === 0) due.add(kind);
  }
  for (const kind of due) logger.info('index compacted', { ...(await compactIndex(INDEXED[kind]!)) });
}
