/** The change feed (API.md §8.5). */
import * as z from 'zod/mini';
import { FEED_READS } from '../../shared/db/feed.js';
import { changeEntryRead, changesQuery } from '../../shared/domain/changes.js';
import { defineRoute } from '../../shared/http/route.js';
import { paginationParams } from '../../shared/http/schemas.js';

export const routes = {
  list: defineRoute({
    name: 'changes.list', method: 'GET', path: '/api/changes/', access: 'public', cache: 'no-store',
    summary: 'The change feed: every write of a catalogue or taxonomy record of the last 30 days, in commit order',
    description:
      'Poll `next`: it is always present, and when the feed is caught up `results` is empty and `next` resumes from the same point. ' +
      'A page may hold fewer than `limit` entries (none, with `kind`) while more follow. A cursor older than the retention → 410.',
    query: z.extend(changesQuery, paginationParams),
    repeatable: ['kind'],
    response: { status: 200, schema: z.object({ results: z.array(changeEntryRead), next: z.string().check(z.meta({ format: 'uri' })) }) },
    errors: ['gone'],
    // The feed's entries (Query), the head and single entries (GetItem).
    keys: FEED_READS,
  }),
};
