/**
 * The season lists (API.md §4.16): `GET /api/seasons/{year}/{season}/`, `…/now/`, `…/upcoming/`.
 * A season's animes are those whose index vector has the season among its `year_season` values
 * (an anime's delta, written in its own write: a change of `aired_from` or `status` shows at
 * once), so a season page is the anime index's page with that equality and the request's
 * `media_type` and `status` (shared/domain/index-reader.ts): the deltas since the last request
 * with a tombstone shard, then the page's records — two rounds whatever the season's size.
 * `count` without a filter is the evaluation's exact count.
 */
import { yearSeason } from '../db/animes.js';
import { Deleted, tombstoneKey } from '../db/tombstones.js';
import { clock } from '../clock.js';
import { animes } from '../domain/animes.js';
import { seasonFilters, seasonNow, seasonUpcoming, type SeasonOfYear } from '../domain/seasons.js';
import type { ApiRequest, Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { readKnown, recordsOf, sfwQuery, shapeKeys } from './titles.js';
import { indexPage } from '../domain/index-reader.js';

/** Which season a route shows: the one in its path, or the current or upcoming one (§5.2). */
export type SeasonChoice = 'path' | 'now' | 'upcoming';

const chosen: Record<SeasonChoice, (req: ApiRequest) => SeasonOfYear> = {
  path: (req) => req.params as unknown as SeasonOfYear,
  now: () => seasonNow(clock()),
  upcoming: () => seasonUpcoming(clock()),
};

type SeasonQuery = Record<string, unknown> & { ordering: { key: string; descending: boolean } };

/** The index equalities of a season page: its season, and the query's filters (§4.16). */
function seasonEquals(s: SeasonOfYear, query: SeasonQuery): Record<string, string> {
  const filters = Object.keys(seasonFilters).filter((p) => query[p] !== undefined);
  return { year_season: yearSeason(s.year, s.season), ...Object.fromEntries(filters.map((p) => [p, String(query[p])])) };
}

export function seasonList(choice: SeasonChoice): Operation {
  const { index } = animes.title;
  const shape = shapeKeys(animes).item;
  const op: Operation = async (req) => {
    const s = chosen[choice](req);
    const query = req.query as unknown as SeasonQuery;
    const equals = seasonEquals(s, query);
    const q = { ordering: query.ordering.key, descending: query.ordering.descending, limit: pageLimit(req), cursor: req.query.cursor ?? null, terms: [], equals };
    const known = readKnown(req, [tombstoneKey(req.requestId)]);
    const [page, [tomb]] = await Promise.all([indexPage(index, sfwQuery(animes, query.sfw, q, known)), known]);
    // References to deleted records are left out of the records.
    const records = await recordsOf(animes, page.entries.map((e) => e.id), shape, new Deleted(tomb));
    const count = Object.keys(equals).length > 1 || query.sfw === true ? null : page.count;
    return pageReply(req, { items: records, next: page.next, previous: page.previous }, count, { year: s.year, season: s.season });
  };
  // With a token, the tombstones are read with the caller's auth state.
  op.prefetch = (req) => [tombstoneKey(req.requestId)];
  return op;
}
