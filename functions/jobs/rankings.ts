/**
 * The rankings job (API.md §5.5: every 10 minutes): `rank` and `popularity` of animes and
 * mangas, `favorites` and `members` of characters, `favorites` of persons (§5.1), and the top
 * lists their `refreshed_at` dates (§4.20, §4.2 `members/`). The run itself:
 * shared/domain/rankings.ts.
 *
 * One run at a time: a run takes a lease that ends a minute after the function's own deadline
 * (a run killed by its timeout holds up the next one by a minute at most); a run that finds it
 * held returns at once. Idempotent: a run writes only the numbers and entries that differ from
 * what is stored. A run that cannot write a record fails (the failure alarm) and leaves
 * `refreshed_at` and the top lists as they were; the next run writes what it could not.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { runRankings, type RankingsSummary } from '../../shared/domain/rankings.js';
import { logger } from '../../shared/log.js';

/** How long the lease outlives the function's deadline. */
const LEASE_MARGIN_MS = 60_000;

export async function handler(_event: ScheduledEvent, context: Context): Promise<RankingsSummary> {
  logger.addContext(context);
  const summary = await runRankings({ leaseMs: context.getRemainingTimeInMillis() + LEASE_MARGIN_MS });
  logger.info(summary.skipped ? 'rankings run skipped: another run holds the lease' : 'rankings run', { ...summary });
  return summary;
}
