/** The weekly schedule of the airing animes (API.md §4.15). */
import { animeTitle } from '../../shared/db/animes.js';
import { grant } from '../../shared/db/key-patterns.js';
import { titleKeys } from '../../shared/db/titles.js';
import { scheduleEntryRead, scheduleQuery } from '../../shared/domain/schedules.js';
import { defineRoute } from '../../shared/http/route.js';

export const routes = {
  list: defineRoute({
    name: 'schedules.list', method: 'GET', path: '/api/schedules/', access: 'public',
    summary: 'List the weekly schedule of the airing animes', query: scheduleQuery,
    response: { status: 200, schema: scheduleEntryRead, page: true, fields: Object.keys(scheduleEntryRead.shape) },
    // The schedule's posting list (Query) and its animes' records.
    keys: grant(titleKeys(animeTitle), 'BatchGetItem', 'Query'),
  }),
};
