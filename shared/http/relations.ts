/**
 * Sub-resource lists read from a title's written arrays (API.md §4.0 "Sub-resource lists",
 * §4.1.2): `videos/`, `pictures/` (and the cast and staff lists, which also read the records
 * their entries name). The parent must exist (404); the whole array is read (its chunks: one
 * Query, with the parent's existence in parallel), filtered, ordered by the requested key —
 * `position` is the entry's place in the array last written — and cut at the cursor. `count` is
 * always exact.
 */
import { pageOf } from '../db/catalogue-index.js';
import { compareCodePoints } from '../db/sort-keys.js';
import { sortKey } from '../db/sort-keys.js';
import { readRelation } from '../db/titles.js';
import type { Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { notFound } from '../problem.js';
import type { RelationListing } from '../domain/listings.js';


export function relationList<E extends { id: string }>(listing: RelationListing<E>): Operation {
  return async (req) => {
    const q = req.query as unknown as Record<string, unknown> & { ordering: { key: string; descending: boolean } };
    const entries = (await readRelation(listing.title, (req.params as { id: string }).id, listing.relation)) as E[] | null;
    if (!entries) throw notFound(`No ${listing.noun} with this id.`);
    const ordering = listing.orderings[q.ordering.key]!;
    const dir = q.ordering.descending ? 'desc' : 'asc';
    const kept = entries
      .map((e, position) => ({ e, position }))
      .filter(({ e }) => Object.entries(listing.filters ?? {}).every(([param, value]) => q[param] === undefined || value(e) === q[param]))
      .map(({ e, position }) => ({ e, sk: sortKey(ordering.value(e, position), ordering.type, e.id, dir) }))
      .sort((a, b) => compareCodePoints(a.sk, b.sk) * (q.ordering.descending ? -1 : 1));
    const page = pageOf(kept, q.ordering.descending, pageLimit(req), req.query.cursor ?? null);
    const project = listing.project ?? ((e: E) => e);
    return pageReply(req, { items: page.kept.map((k) => project(k.e)), next: page.next, previous: page.previous }, kept.length);
  };
}
