/** The pagination envelope of API.md §1.5 with absolute `next`/`previous` links. */
import type { Cursor } from '../db/sort-keys.js';
import { encodeCursor, queryBinding } from './cursor.js';
import type { ApiRequest, Reply } from './handler.js';

export const DEFAULT_LIMIT = 25;

export function pageLimit(req: ApiRequest): number {
  return req.query.limit ?? DEFAULT_LIMIT;
}

/** The absolute URL of the request's list at `cursor`: every query parameter repeated, `cursor` set (§1.5). */
export async function pageLink(req: ApiRequest, cursor: Cursor | null): Promise<string | null> {
  if (!cursor) return null;
  const token = await encodeCursor(cursor, queryBinding(req.path, req.queryPairs));
  const pairs = req.queryPairs.filter(([k]) => k !== 'cursor');
  pairs.push(['cursor', token]);
  const qs = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return `${req.baseUrl}${req.path}?${qs}`;
}

export async function pageReply<T>(
  req: ApiRequest,
  page: { items: readonly T[]; next: Cursor | null; previous: Cursor | null },
  count: number | null,
  extra: Record<string, unknown> = {},
): Promise<Reply> {
  const [next, previous] = await Promise.all([pageLink(req, page.next), pageLink(req, page.previous)]);
  return { status: 200, body: { count, next, previous, results: page.items, ...extra } };
}
