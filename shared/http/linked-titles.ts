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
import { getItems, type Item } from '../db/batch.js';
import { readPostings, vectorPage } from '../db/catalogue-index.js';
import { recordKeyOfKind, type BaseRecord } from '../db/records.js';
import type { LinkedListing } from '../domain/title-resource.js';
import type { ApiRequest, Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { notFound } from './problem.js';
import { inShapeOrder } from './represent.js';
import { shapeKeys } from './titles.js';

export function listLinkedTitles<R extends BaseRecord>(listing: LinkedListing<R>): Operation {
  const { resource, parent } = listing;
  const { entity, index } = resource.title;
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
    const keys = page.entries.map((e) => recordKeyOfKind(entity.kind, e.id));
    const items = await getItems(known === undefined ? [parentKey(req), ...keys] : keys);
    if (known === undefined && !items.shift()) throw notFound(`No ${parent.noun} with this id.`);
    // A record deleted since its posting was read is left out.
    const records = items.filter((i): i is Item => i !== null).map((i) => inShapeOrder(i.rec as R, shape));
    return pageReply(req, { items: records, next: page.next, previous: page.previous }, page.matched);
  };
  // With a token, the parent is read with the caller's auth state.
  op.prefetch = (req) => [parentKey(req)];
  return op;
}
