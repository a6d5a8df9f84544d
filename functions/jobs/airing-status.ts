/**
 * The airing status job (API.md §5.5: hourly): moves the titles that came from the catalogue
 * source from `upcoming` to `airing` once `aired_from` has come and from `airing` to `finished`
 * once `aired_to` has passed (dates in Japan, where the source's are), unless a contributor has
 * set `status` since the import (shared/domain/imported.ts; docs/decisions.md I5). Schedules and
 * seasons read the status at request time, so they follow at once.
 *
 * The run's "now" is the scheduled time of its event. Idempotent, and safe to run twice at
 * once: each move is a title write at the revision read, and a title already moved is left. A
 * title that cannot be written keeps its status and the run fails (the failure alarm); the next
 * run moves it.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { advanceStatuses, type StatusSummary } from '../../shared/domain/catalogue-import.js';
import { logger } from '../../shared/log.js';
import { scheduledTime } from './scheduled.js';

export async function handler(event: ScheduledEvent, context: Context): Promise<StatusSummary> {
  logger.addContext(context);
  const summary = await advanceStatuses({ now: scheduledTime(event) });
  if (Object.keys(summary).length > 0) logger.info('airing status run', { ...summary });
  if (summary.failed) throw new Error(`airing status: ${summary.failed} titles not moved (the next run tries again)`);
  return summary;
}
