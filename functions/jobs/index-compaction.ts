/**
 * The index compaction job (issue 19; shared/domain/index-compaction.ts): folds every kind's
 * deltas written since its snapshot into the next one (a kind without any is left alone).
 * Between the stream trigger's compactions (every COMPACT_EVERY deltas,
 * functions/streams/index-compactor.ts) it keeps the deltas a new function reads few. Idempotent; two runs at once publish one snapshot each kind.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { compactIndex, type Compaction } from '../../shared/domain/index-compaction.js';
import { INDEXED } from '../../shared/domain/index-kinds.js';
import { logger } from '../../shared/log.js';

export async function handler(_event: ScheduledEvent, context?: Context): Promise<Compaction[]> {
  if (context) logger.addContext(context);
  const out: Compaction[] = [];
  for (const def of Object.values(INDEXED)) out.push(await compactIndex(def));
  logger.info('index compaction run', { compactions: out.filter((c) => c.version !== null) });
  return out;
}
