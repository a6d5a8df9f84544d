/**
 * The titles linked to a taxonomy record — the reverse lists of a record that titles name in
 * their relation fields: `GET /api/genres/{id}/animes/` (§4.4), `GET /api/producers/{id}/animes/`
 * (§4.11), and in the same way a genre's, magazine's or demographic's mangas. One list is the
 * title entity's index queried with an equality filter on the record (`genre`, `credited`,
 * `studio`, …, the posting lists of shared/db/catalogue-index.ts): the planner reads the record
 * with its first call (404 when it is gone), so a page costs what a filtered list page costs.
 * `count` is exact: the record's own count of linked titles (`anime_count`, a producer's credits
 * per role), which title writes keep in their transactions (§3.7), not the planner's list sizes,
 * which are hints.
 */
import type { Item } from '../db/batch.js';
import { queryIndex } from '../db/catalogue-index.js';
import { counterKeyOf, recordKeyOfKind, type BaseRecord } from '../db/records.js';
import type { TitleResource } from '../domain/title-resource.js';
import type { ApiRequest, Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { notFound } from './problem.js';
import { recordsOf } from './titles.js';

export interface LinkedTitles<R extends BaseRecord> {
  /** The titles listed (their index, records and list item shape). */
  titles: TitleResource<R>;
  /** The record in the path: its kind (`GENRE`) and noun (404 message). */
  parent: { kind: string; noun: string };
  /**
   * The index's equality filters that select the titles linking the record `id` (given the
   * request's query, e.g. a `role`): `{ genre: id }`, `{ credited: id }`, `{ studio: id }`.
   */
  filter(id: string, query: Record<string, unknown>): Record<string, string>;
  /** The exact number of listed titles, from the parent's item (`rec.anime_count`, …). */
  count(parent: Item, query: Record<string, unknown>): number;
  /** Fields the list adds to each title (e.g. a producer's `producer_roles`), after its own. */
  extra?(record: R, id: string): Record<string, unknown>;
}

export function linkedTitles<R extends BaseRecord>(listing: LinkedTitles<R>): Operation {
  const { entity, index } = listing.titles.title;
  const shape = Object.keys((listing.titles.listRead ?? listing.titles.read).shape);
  return async (req: ApiRequest) => {
    const id = (req.params as { id: string }).id;
    const query = req.query as unknown as Record<string, unknown> & { ordering: { key: string; descending: boolean } };
    const result = await queryIndex(
      index,
      counterKeyOf(entity),
      { ordering: query.ordering.key, descending: query.ordering.descending, limit: pageLimit(req), cursor: req.query.cursor ?? null, terms: [], equals: listing.filter(id, query) },
      {
        also: [recordKeyOfKind(listing.parent.kind, id)],
        check: ([parent]) => {
          if (!parent) throw notFound(`No ${listing.parent.noun} with this id.`);
        },
      },
    );
    const records = await recordsOf<R>(entity.kind, result.entries.map((e) => e.id), shape);
    const items = listing.extra ? records.map((r) => ({ ...r, ...listing.extra!(r, id) })) : records;
    return pageReply(req, { items, next: result.next, previous: result.previous }, listing.count(result.alsoItems[0]!, query));
  };
}
