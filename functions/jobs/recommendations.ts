/**
 * The recommendations job (API.md §5.4, §5.5: hourly): the per-title recommendation lists of
 * animes and mangas, from the users' high list items (shared/domain/recommendations.ts). Writes
 * only the lists that changed, as versions its last write makes visible with `refreshed_at`: a
 * run that fails leaves the previous lists and `refreshed_at` in place, and throws (the failure
 * alarm). Idempotent; a second run while one holds the lease does nothing.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { refreshRecommendations, type RunSummary } from '../../shared/domain/recommendations-job.js';
import { logger } from '../../shared/log.js';

export async function handler(_event: ScheduledEvent, context: Context): Promise<RunSummary> {
  logger.addContext(context);
  const summary = await refreshRecommendations();
  logger.info('recommendations run', { ...summary });
  return summary;
}
