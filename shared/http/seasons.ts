/**
 * The season lists (API.md §4.16): `GET /api/seasons/{year}/{season}/`, `…/now/`, `…/upcoming/`.
 * A season's animes are one posting list of the anime index (`year_season`, written in each
 * anime's own write: a change of `aired_from` or `status` shows at once), read whole — a season
 * holds a few hundred animes, one Query page — then filtered, ordered and cut in memory like a
 * driver list of the planner (catalogue-index.ts vectorPage), so `count` is exact and every page
 * full. The page's records are read with the tombstones (one BatchGetItem). Two calls.
 */
import { yearSeason } from '../db/animes.js';
import { clock } from '../clock.js';
import { animes } from '../domain/animes.js';
import { seasonFilters, seasonNow, seasonUpcoming, type SeasonOfYear } from '../domain/seasons.js';
import type { ApiRequest, Operation } from './handler.js';
import { postingListPage } from './linked-titles.js';
import { pageReply } from './page.js';
import { recordsOf, shapeKeys } from './titles.js';

/** Which season a route shows: the one in its path, or the current or upcoming one (§5.2). */
export type SeasonChoice = 'path' | 'now' | 'upcoming';

const chosen: Record<SeasonChoice, (req: ApiRequest) => SeasonOfYear> = {
  path: (req) => req.params as unknown as SeasonOfYear,
  now: () => seasonNow(clock()),
  upcoming: () => seasonUpcoming(clock()),
};

export function seasonList(choice: SeasonChoice): Operation {
  const { index } = animes.title;
  const shape = shapeKeys(animes).item;
  return async (req) => {
    const { year, season } = chosen[choice](req);
    const { page, filtered } = await postingListPage(index, 'year_season', yearSeason(year, season), req, seasonFilters);
    // A record deleted since its posting was read is left out; so are its references to deleted records.
    const records = await recordsOf(animes, page.entries.map((e) => e.id), shape, req.requestId);
    const count = filtered ? null : page.matched;
    return pageReply(req, { items: records, next: page.next, previous: page.previous }, count, { year, season });
  };
}
