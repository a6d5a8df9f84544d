/**
 * The change feed's pages (API.md §8.5; the entries: shared/db/feed.ts; decision EX10).
 *
 * A page starts after an entry number: the cursor's, or for a first request the number before
 * the first entry at or after `since` (default: the retention's start), found by a binary search
 * over the numbers (entries' `at` never decreases along them; ~log2(entries) reads, once per
 * client). It reads a bounded run of entries after that number and returns those of the kinds
 * asked for, at most `limit`; `after` is where the next page starts — the last entry returned
 * when the page is full, else the last one read, so a page that read only other kinds' entries
 * still moves on (§1.5 "bounded work": a page may be empty while `next` leads further).
 *
 * The run read is only ever a **gapless** run of numbers from `after + 1`: numbers are taken in
 * commit order without gaps (feed.ts), so a missing number below one that exists is either an
 * entry expired and deleted (the cursor is older than the retention: 410) or, for a moment, one
 * whose transaction a concurrent Query read around; the page stops before such a gap and the
 * next poll reads on. Nothing is ever skipped.
 */
import * as z from 'zod/mini';
import { FEED_KINDS, FEED_RETENTION_MS, readFeed, readFeedEntry, readFeedHead, type FeedEntry, type FeedKind } from '../db/feed.js';
import { HttpError } from '../problem.js';

/** Entries read per page when `kind` leaves some out (≤ ~65 KB: 16 read units strongly consistent). */
export const FILTERED_RUN = 500;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const KINDS_MESSAGE = `A comma-separated list of: ${FEED_KINDS.join(', ')}.`;

export const changesQuery = z.object({
  kind: z.optional(
    z
      .pipe(
        z.string(),
        z.transform((v: string, ctx) => {
          const parts = v.split(',');
          if (parts.some((p) => !(FEED_KINDS as readonly string[]).includes(p))) ctx.issues.push({ code: 'custom', message: KINDS_MESSAGE, input: v });
          return [...new Set(parts)] as FeedKind[];
        }),
      )
      .check(z.meta({ description: `Only entries of these kinds (repeat the parameter, or separate kinds by commas): ${FEED_KINDS.join(', ')}. Default: all.` })),
  ),
  since: z.optional(
    z
      .string()
      .check(
        z.refine((v) => TIMESTAMP.test(v) && !Number.isNaN(Date.parse(v)) && sameDate(v), 'A timestamp, e.g. 2026-11-30T12:00:00.000Z.'),
        z.meta({ description: 'Start with the first entry at or after this time (RFC 3339; default: 30 days ago, the retention). Ignored with `cursor`.', format: 'date-time' }),
      ),
  ),
});

/** The date part names a real day (Date.parse rolls 2026-02-30 over into March). */
function sameDate(v: string): boolean {
  const [y, m, d] = v.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

export const changeEntryRead = z.object({
  kind: z.enum(FEED_KINDS),
  id: z.string(),
  change: z.enum(['created', 'updated', 'deleted']),
  at: z.string().check(z.meta({ format: 'date-time' })),
});

export interface ChangesPage {
  entries: Omit<FeedEntry, 'seq'>[];
  /** The number the next page starts after. */
  after: number;
}

const gone = () =>
  new HttpError('gone', 'This cursor is older than the change feed keeps entries (30 days): read the catalogue again, then follow the feed from the time you started.');

/** Whether an entry is past the retention at `now` (DynamoDB's TTL deletes it some time later). */
const expired = (e: FeedEntry, now: number) => Date.parse(e.at) + FEED_RETENTION_MS <= now;

/**
 * The number before the first entry at or after `since` (clamped to the retention's start), or
 * the head when there is none. Binary search over 1..head: an entry that is missing (deleted by
 * the TTL) or older than the bound is before the start, and those form a prefix.
 */
export async function startAfter(since: string | undefined, now: number): Promise<number> {
  const bound = Math.max(since === undefined ? 0 : Date.parse(since), now - FEED_RETENTION_MS);
  const head = await readFeedHead();
  if (Date.parse(head.at) < bound) return head.seq;
  let [lo, hi] = [1, head.seq];
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const e = await readFeedEntry(mid);
    if (e && Date.parse(e.at) >= bound) hi = mid;
    else lo = mid + 1;
  }
  return lo - 1;
}

/** A page of the feed after entry `after` (see the module comment). */
export async function changesPage(after: number, opts: { kinds: readonly FeedKind[] | undefined; limit: number; now: number }): Promise<ChangesPage> {
  const kinds = opts.kinds && opts.kinds.length < FEED_KINDS.length ? new Set(opts.kinds) : null;
  const { entries: run, head } = await readFeed(after, kinds ? Math.max(FILTERED_RUN, opts.limit) : opts.limit);
  const first = run[0];
  if (first && expired(first, opts.now)) throw gone();
  // The next number is missing though a later one exists: deleted by the TTL (410), or committed
  // just as the Query read past it (read again at the next poll).
  if ((first && first.seq !== after + 1) || (!first && head !== null && head > after)) {
    if (!(await readFeedEntry(after + 1))) throw gone();
    return { entries: [], after };
  }
  const entries: ChangesPage['entries'] = [];
  let last = after;
  for (const e of run) {
    if (e.seq !== last + 1) break;
    last = e.seq;
    if (kinds && !kinds.has(e.kind)) continue;
    entries.push({ kind: e.kind, id: e.id, change: e.change, at: e.at });
    if (entries.length === opts.limit) break;
  }
  return { entries, after: last };
}
