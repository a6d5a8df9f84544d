/** The weekly schedule of the airing animes (API.md §4.15). */
import { animeTitle } from '../../shared/db/animes.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { titleKeys } from '../../shared/db/titles.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { indexReads } from '../../shared/domain/index-reader.js';
import { calendarQuery, scheduleEntryRead, scheduleQuery } from '../../shared/domain/schedules.js';
import { defineRoute } from '../../shared/http/route.js';

export const routes = {
  list: defineRoute({
    name: 'schedules.list', method: 'GET', path: '/api/schedules/', access: 'public',
    summary: 'List the weekly schedule of the airing animes', query: scheduleQuery,
    response: { status: 200, schema: scheduleEntryRead, page: true, fields: Object.keys(scheduleEntryRead.shape) },
    // The anime index (its pointer and deltas; its snapshot from the index bucket), the page's animes,
    // and with `sfw=true` a tombstone shard (the explicit genres and themes).
    keys: grants(grant(titleKeys(animeTitle), 'BatchGetItem'), indexReads('ANIME'), TOMBSTONE_READS),
    uses: ['index-read'],
  }),
  calendar: defineRoute({
    name: 'schedules.calendar', method: 'GET', path: '/api/schedules/calendar.ics', access: 'public', cache: 'feed',
    summary: 'The airing calendar (iCalendar): every episode of the airing animes, or of the animes named, for the next weeks',
    query: calendarQuery,
    response: { status: 200, media: 'text/calendar' },
    // As the schedule: the anime index (its pointer and deltas; its snapshot from the index bucket), and
    // the records of the animes `anime=` names, read with the tombstones (also `sfw=true`'s explicit sets).
    keys: grants(grant(titleKeys(animeTitle), 'BatchGetItem'), indexReads('ANIME'), TOMBSTONE_READS),
    uses: ['index-read'],
  }),
};
