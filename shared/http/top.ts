/**
 * The lists the rankings job makes (API.md §4.20 `top/animes/`, `top/mangas/`,
 * `top/characters/`, `top/artists/`; §4.2 `characters/members/`): a page of the job's top list
 * (shared/db/rankings.ts: its order and its selection as the last run computed them, the filters
 * compared with the run's values), then one BatchGetItem of the page's records — their current
 * representations, leaving out those deleted since — with the tombstones and `refreshed_at`.
 * Two calls (a filtered page may read up to four Queries to fill itself); `count` is null.
 */
import { rankingsStateKey, refreshedAtOf, topListPage, type TopList } from '../db/rankings.js';
import type { BaseRecord } from '../db/records.js';
import type { TitleResource } from '../domain/title-resource.js';
import type { ApiRequest, Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { recordsWith, shapeKeys } from './titles.js';
import { explicitTest } from '../domain/sfw.js';

/** Which list a request reads, and the equalities its filters put on the entries' run values. */
export type TopChoice = (query: Record<string, unknown>) => { list: TopList; equals: Record<string, string> };

/**
 * §4.20 for titles: no filter → by rank; `airing`/`publishing` → by rank with that status;
 * `upcoming` → by popularity, status upcoming; `bypopularity` → by popularity; `favorite` → by
 * favourites. `media_type` narrows any of them.
 */
export function titleChoice(kind: 'ANIME' | 'MANGA'): TopChoice {
  return (query) => {
    const filter = query.filter as string | undefined;
    const equals: Record<string, string> = {};
    if (typeof query.media_type === 'string') equals.media_type = query.media_type;
    if (filter === undefined) return { list: `${kind}#rank`, equals };
    if (filter === 'favorite') return { list: `${kind}#favorite`, equals };
    if (filter === 'bypopularity') return { list: `${kind}#popularity`, equals };
    if (filter === 'upcoming') return { list: `${kind}#popularity`, equals: { ...equals, status: 'upcoming' } };
    return { list: `${kind}#rank`, equals: { ...equals, status: filter } };
  };
}

/** A page of a top list as the resource's list items, with `refreshed_at`. */
export function topOperation<R extends BaseRecord>(resource: TitleResource<R>, choose: TopChoice): Operation {
  const shape = shapeKeys(resource).item;
  return async (req: ApiRequest) => {
    const query = req.query as Record<string, unknown>;
    const { list, equals } = choose(query);
    const page = await topListPage(list, { equals, limit: pageLimit(req), cursor: req.query.cursor ?? null });
    const { records, also, deleted } = await recordsWith(resource, page.items.map((i) => i.value), shape, req.requestId, [rankingsStateKey]);
    // `sfw=true` (§8.3): the page's explicit titles, by their current genres, themes and rating, are left out
    // (a page may hold fewer than `limit`, §1.5; the list is the run's, whose entries hold neither).
    const explicit = query.sfw === true ? explicitTest(deleted) : null;
    const items = explicit ? records.filter((r) => !explicit(r)) : records;
    return pageReply(req, { items, next: page.next, previous: page.previous }, null, { refreshed_at: refreshedAtOf(also[0]) });
  };
}
