/**
 * The season lists (API.md §4.16): `GET /api/seasons/{year}/{season}/`, `…/now/`, `…/upcoming/`.
 * A season's animes are one posting list of the anime index (`year_season`, written in each
 * anime's own write: a change of `aired_from` or `status` shows at once), so a season page is the
 * anime planner's page with that equality and the request's `media_type` and `status`
 * (catalogue-index.ts queryIndex): at most one Query of index items on a first page, four on a
 * later one, each ≤ 1 MB, whatever the season's size. `count` without a filter is the season's
 * exact count (`year_season` is a counted filter, kept in each anime's write), read in the
 * planner's first call with the tombstones; then the page's records. Three calls (a later page:
 * up to six); signed in, the first call also reads the caller's auth state.
 */
import { yearSeason } from '../db/animes.js';
import { getItems, type Item } from '../db/batch.js';
import { countIn, countKey, planKeys, queryIndex } from '../db/catalogue-index.js';
import { counterKeyOf } from '../db/records.js';
import { Deleted, tombstoneKey } from '../db/tombstones.js';
import { clock } from '../clock.js';
import { animes } from '../domain/animes.js';
import { seasonFilters, seasonNow, seasonUpcoming, type SeasonOfYear } from '../domain/seasons.js';
import type { ApiRequest, Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { recordsOf, shapeKeys } from './titles.js';

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
  const { index, entity } = animes.title;
  const shape = shapeKeys(animes).item;
  const counter = counterKeyOf(entity);
  /** Read in the planner's first call: the season's exact count and a tombstone shard. */
  const also = (s: SeasonOfYear, req: ApiRequest) => [countKey(index, 'year_season', yearSeason(s.year, s.season)), tombstoneKey(req.requestId)];
  const op: Operation = async (req) => {
    const s = chosen[choice](req);
    const query = req.query as unknown as SeasonQuery;
    const equals = seasonEquals(s, query);
    const result = await queryIndex(
      index,
      counter,
      { ordering: query.ordering.key, descending: query.ordering.descending, limit: pageLimit(req), cursor: req.query.cursor ?? null, terms: [], equals },
      {
        also: also(s, req),
        read: async (keys) => {
          const known = keys.map((k) => req.prefetched(k));
          return known.every((k) => k !== undefined) ? (known as (Item | null)[]) : getItems(keys);
        },
      },
    );
    // A record deleted since its posting was read is left out; so are its references to deleted records.
    const records = await recordsOf(animes, result.entries.map((e) => e.id), shape, new Deleted(result.alsoItems[1]));
    const count = Object.keys(equals).length > 1 ? null : countIn(result.alsoItems[0]);
    return pageReply(req, { items: records, next: result.next, previous: result.previous }, count, { year: s.year, season: s.season });
  };
  // With a token, the planner's first call is read with the caller's auth state.
  op.prefetch = (req) => {
    const s = chosen[choice](req);
    return [...planKeys(index, counter, { equals: seasonEquals(s, req.query as unknown as SeasonQuery), terms: [] }), ...also(s, req)];
  };
  return op;
}
