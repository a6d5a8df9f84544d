/**
 * The titles linked to a record — the reverse lists of a record that titles name in their
 * relation fields: `GET /api/genres/{id}/animes/` (§4.4), `GET /api/producers/{id}/animes/`
 * (§4.11), a genre's mangas, a person's mangas (§4.9, shared/http/authored.ts). One list is the
 * title kind's in-memory index evaluated with an equality filter on the record (`genre`,
 * `credited`, `studio`, `author`, …: shared/domain/index-reader.ts), the record read with the
 * index's deltas (404 when it is gone), so a page costs what a filtered list page costs — the
 * deltas' Query, then the page's records — whatever the number of linked titles. `count` is
 * exact: the record's own count of linked titles (`anime_count`, a producer's credits per role),
 * which title writes keep in their transactions (§3.7), or the evaluation's count (a person's
 * mangas, a title's news).
 */
import { recordKeyOfKind, type BaseRecord } from '../db/records.js';
import { indexPage } from '../domain/index-reader.js';
import type { LinkedListing } from '../domain/title-resource.js';
import type { LinkedTitles } from '../domain/listings.js';
import type { ApiRequest, Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { notFound } from '../problem.js';
import { readKnown, recordsOf, sfwQuery } from './titles.js';
import { Deleted, tombstoneKey } from '../db/tombstones.js';


export function linkedTitles<R extends BaseRecord>(listing: LinkedTitles<R>): Operation {
  const { index } = listing.titles.title;
  const shape = Object.keys((listing.titles.listRead ?? listing.titles.read).shape);
  const idOf = (req: ApiRequest) => (req.params as { id: string }).id;
  const queryOf = (req: ApiRequest) => req.query as unknown as Record<string, unknown>;
  /** Read with the index's deltas: the parent (404) and a tombstone shard. */
  const also = (req: ApiRequest) => [recordKeyOfKind(listing.parent.kind, idOf(req)), tombstoneKey(req.requestId)];
  const op: Operation = async (req: ApiRequest) => {
    const id = idOf(req);
    const query = queryOf(req) as Record<string, unknown> & { ordering: { key: string; descending: boolean } };
    const q = { ordering: query.ordering.key, descending: query.ordering.descending, limit: pageLimit(req), cursor: req.query.cursor ?? null, terms: [], equals: listing.filter(id, query) };
    const known = readKnown(req, also(req));
    const [page, [parent, tomb]] = await Promise.all([indexPage(index, sfwQuery(listing.titles, query.sfw, q, known)), known]);
    if (!parent) throw notFound(`No ${listing.parent.noun} with this id.`);
    const records = await recordsOf(listing.titles, page.entries.map((e) => e.id), shape, new Deleted(tomb));
    const items = listing.extra ? records.map((r) => ({ ...r, ...listing.extra!(r, id) })) : records;
    // The parent's count is of every linked title; with `sfw=true`, the evaluation's (exact too).
    return pageReply(req, { items, next: page.next, previous: page.previous }, listing.count && query.sfw !== true ? listing.count(parent, query) : page.count);
  };
  // Read with the caller's auth state when a token is sent.
  op.prefetch = also;
  return op;
}

/**
 * The filter of a linked list with a query parameter `param` (e.g. a person's mangas by `role`):
 * the parent's equality `link`, and with the parameter given, `equals(id, value)` too. Its
 * `count` is the index's count of that query.
 */
export function filteredByParam<R extends BaseRecord>(o: { link: string; param: string; equals: (id: string, value: string) => Record<string, string> }): Pick<LinkedTitles<R>, 'filter'> {
  const given = (q: Record<string, unknown>) => (q[o.param] === undefined ? undefined : String(q[o.param]));
  return { filter: (id, q) => ({ [o.link]: id, ...(given(q) === undefined ? {} : o.equals(id, given(q)!)) }) };
}

/**
 * Sub-resource lists of the titles that link a parent record (API.md §4.0 "Sub-resource lists"):
 * the `news/` of an anime (§4.1.2) or a manga (§4.7) — the news index's page with the parent's
 * equality (`anime`, `manga`) and the query's filters, `count` the evaluation's (linkedTitles).
 */
export function listLinkedTitles<R extends BaseRecord>(listing: LinkedListing<R>): Operation {
  return linkedTitles({
    titles: listing.resource,
    parent: listing.parent,
    ...filteredByParam({ link: listing.filter, param: listing.param, equals: (_id, value) => ({ [listing.param]: value }) }),
  });
}
