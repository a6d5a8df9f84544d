/** `GET /api/changes/` (API.md §8.5; the pages: shared/domain/changes.ts). */
import { clock } from '../clock.js';
import type { FeedKind } from '../db/feed.js';
import type { Cursor } from '../db/sort-keys.js';
import { changesPage, startAfter } from '../domain/changes.js';
import { invalidQuery } from '../problem.js';
import type { Operation } from './handler.js';
import { pageLimit, pageLink } from './page.js';

/** A feed cursor holds the number its page starts after. */
const cursorAt = (after: number): Cursor => ({ d: 'n', k: String(after) });
function afterOf(cursor: Cursor): number {
  if (cursor.d !== 'n' || !/^\d{1,12}$/.test(cursor.k)) throw invalidQuery({ cursor: ['Invalid cursor.'] }, 'The cursor is invalid or belongs to another query.');
  return Number(cursor.k);
}

export const listChanges: Operation = async (req) => {
  const q = req.query as { kind?: FeedKind[]; since?: string; cursor?: Cursor };
  const now = clock().getTime();
  const after = q.cursor ? afterOf(q.cursor) : await startAfter(q.since, now);
  const page = await changesPage(after, { kinds: q.kind, limit: pageLimit(req), now });
  return { status: 200, body: { results: page.entries, next: await pageLink(req, cursorAt(page.after)) } };
};
