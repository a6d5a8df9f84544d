/**
 * The season refresh job (API.md §5.5: daily, and at the first start of an empty deployment):
 * imports the titles of the current and upcoming seasons (§5.2, on the UTC date of the run) from
 * the catalogue source — the bangumi-data data set bundled with this function (docs/decisions.md
 * I6) — through the API's own write path (shared/domain/catalogue-import.ts importTitles): an
 * item without a title becomes one, a title that came from the source is updated field by field
 * while it still holds what the import last wrote there (a contributor's edit is never
 * overwritten, shared/domain/imported.ts), a title a contributor deleted stays deleted.
 *
 * The run's "now" is the scheduled time of its event (EventBridge's `time`, so a retried or late
 * invocation imports the same seasons). Idempotent: a second run changes nothing. Two runs at
 * once make the same titles as one: creations are conditioned on the item's source link, updates
 * on the title's revision. A title that cannot be written keeps what it had and the run fails
 * (the job's failure alarm; EventBridge retries it); the titles written stay written.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { loadBangumiData } from '../../shared/domain/bangumi-data.js';
import { currentAndUpcoming, importTitles, inSeasons, sourceCatalogue, type ImportSummary } from '../../shared/domain/catalogue-import.js';
import { logger } from '../../shared/log.js';
import { scheduledTime } from './scheduled.js';

export interface SeasonRefreshSummary extends ImportSummary {
  seasons: string[];
  /** Titles of those seasons in the source. */
  titles: number;
}

/** One run at `now` over a data set (default: the bundled one). */
export async function runSeasonRefresh(now: Date, data?: unknown): Promise<SeasonRefreshSummary> {
  const catalogue = sourceCatalogue(data ?? (await loadBangumiData()));
  const titles = inSeasons(catalogue.titles, now);
  const summary = await importTitles(titles, { now });
  return { seasons: currentAndUpcoming(now).map((s) => `${s.season} ${s.year}`), titles: titles.length, ...summary };
}

export async function handler(event: ScheduledEvent, context: Context): Promise<SeasonRefreshSummary> {
  logger.addContext(context);
  const summary = await runSeasonRefresh(scheduledTime(event));
  logger.info('season refresh run', { ...summary });
  if (summary.failed > 0) throw new Error(`season refresh: ${summary.failed} of ${summary.titles} titles not imported (left as they were; the others are imported)`);
  return summary;
}
