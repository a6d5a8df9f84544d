/**
 * The titles that link a record (API.md §4.4 `GET /api/genres/{id}/mangas/`; the same shape
 * serves `genres/{id}/animes/`, `producers/{id}/animes/`, …): the title list of the catalogue
 * index's planner with the parent as an equality filter (its posting list), in the orderings of
 * the title's own list. The parent must exist (404). `count` is always exact: the parent's own
 * count of linked titles (`manga_count`, kept in the titles' write transactions, §3.7), read in
 * the planner's first call — with a token, together with the caller's auth state.
 */
import { getItems, type Item } from '../db/batch.js';
import { readPostings, vectorPage } from '../db/catalogue-index.js';
import { planKeys, queryIndex } from '../db/catalogue-index.js';
import { counterKeyOf, recordKeyOf, type BaseRecord, type EntityDef } from '../db/records.js';
import type { LinkedListing, TitleResource } from '../domain/title-resource.js';
import { recordKeyOfKind } from '../db/records.js';
import type { ApiRequest, Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { notFound } from './problem.js';
import { recordsOf, shapeKeys } from './titles.js';

export interface LinkedTitles<R extends BaseRecord, P extends BaseRecord> {
  /** The titles listed. */
  titles: TitleResource<R>;
  /** The record in the path: its entity and noun (for the 404). */
  parent: { entity: EntityDef<P>; noun: string };
  /** The title index filter whose value is the parent's id (`genre`). */
  filter: string;
  /** The parent's exact number of linked titles (`manga_count`). */
  count: (parent: P) => number;
}

export function linkedTitles<R extends BaseRecord, P extends BaseRecord>(linked: LinkedTitles<R, P>): Operation {
  const { titles, parent, filter } = linked;
  const { entity, index } = titles.title;
  const counter = counterKeyOf(entity);
  const shape = Object.keys((titles.listRead ?? titles.read).shape);
  const idOf = (req: Parameters<Operation>[0]) => (req.params as { id: string }).id;
  const firstKeys = (req: Parameters<Operation>[0]) => [...planKeys(index, counter, { equals: { [filter]: idOf(req) }, terms: [] }), recordKeyOf(parent.entity, idOf(req))];

  const op: Operation = async (req) => {
    const id = idOf(req);
    const q = req.query as unknown as { ordering: { key: string; descending: boolean } };
    const result = await queryIndex(
      index,
      counter,
      { ordering: q.ordering.key, descending: q.ordering.descending, limit: pageLimit(req), cursor: req.query.cursor ?? null, terms: [], equals: { [filter]: id } },
      {
        also: [recordKeyOf(parent.entity, id)],
        check: ([record]) => {
          if (!record) throw notFound(`No ${parent.noun} with this id.`);
        },
        read: async (keys) => {
          const known = keys.map((k) => req.prefetched(k));
          return known.every((k) => k !== undefined) ? (known as (Item | null)[]) : getItems(keys);
        },
      },
    );
    const records = await recordsOf(titles, result.entries.map((e) => e.id), shape, req.requestId);
    return pageReply(req, { items: records, next: result.next, previous: result.previous }, linked.count(result.alsoItems[0]!.rec as P));
  };
  // The planner's first call, read with the caller's auth state when a token is sent.
  op.prefetch = firstKeys;
  return op;
}

/**
 * Sub-resource lists of the titles that link a parent record (API.md §4.0 "Sub-resource lists"):
 * the `news/` of an anime (§4.1.2) or a manga (§4.7). The parent's posting list of the linking
 * filter (e.g. `NEWS#P#anime#<id>`) is read whole — exact, unlike the planner's list sizes, and
 * small: a title has a few hundred articles at most — then filtered, ordered and cut in memory
 * like a driver list of the planner (catalogue-index.ts vectorPage), so `count` is exact and
 * every page full. The page's records and the parent (404 when absent) are read in one batch.
 * Calls: the posting Query (one per MB of postings) and one BatchGetItem; signed in, the parent
 * is read with the caller's auth state instead.
 */

export function listLinkedTitles<R extends BaseRecord>(listing: LinkedListing<R>): Operation {
  const { resource, parent } = listing;
  const { index } = resource.title;
  const shape = shapeKeys(resource).item;
  const parentKey = (req: ApiRequest) => recordKeyOfKind(parent.kind, (req.params as { id: string }).id);
  const op: Operation = async (req) => {
    const q = req.query as unknown as Record<string, unknown> & { ordering: { key: string; descending: boolean } };
    const known = req.prefetched(parentKey(req));
    if (known === null) throw notFound(`No ${parent.noun} with this id.`);
    const postings = await readPostings(index, listing.filter, (req.params as { id: string }).id);
    const equals = Object.fromEntries(Object.keys(listing.filters).filter((p) => q[p] !== undefined).map((p) => [p, String(q[p])]));
    const page = vectorPage(index, postings, {
      ordering: q.ordering.key,
      descending: q.ordering.descending,
      limit: pageLimit(req),
      cursor: req.query.cursor ?? null,
      terms: [],
      equals,
    });
    const [[parentItem], records] = await Promise.all([
      known === undefined ? getItems([parentKey(req)]) : [known],
      // A record deleted since its posting was read is left out; so are its references to deleted records.
      recordsOf(resource, page.entries.map((e) => e.id), shape, req.requestId),
    ]);
    if (!parentItem) throw notFound(`No ${parent.noun} with this id.`);
    return pageReply(req, { items: records, next: page.next, previous: page.previous }, page.matched);
  };
  // With a token, the parent is read with the caller's auth state.
  op.prefetch = (req) => [parentKey(req)];
  return op;
}
