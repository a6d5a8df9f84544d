/**
 * `GET /api/schedules/` (API.md §4.15): the weekly schedule of the airing animes. Their entries
 * come from the anime index held in memory (shared/domain/index-reader.ts indexEntries: an
 * airing anime's vector carries what the schedule needs of it, so a change of `status` or
 * `broadcast` shows once its write returns) — one Query of the deltas since the function's last
 * request — then are slotted at the time of the response (§5.3), filtered by `day`, ordered and
 * cut in memory; the page's anime cards are read from the records (one BatchGetItem), so a
 * card's `score` is current (§1.8). `count` is exact. Two rounds.
 */
import { gzipSync } from 'node:zlib';
import { getItems, type Item } from '../db/batch.js';
import { pageOf } from '../db/catalogue-index.js';
import { entryDuration, scheduleEntryOf, type AnimeRecord } from '../db/animes.js';
import { recordKeyOfKind } from '../db/records.js';
import { compareCodePoints } from '../db/sort-keys.js';
import { clock } from '../clock.js';
import { animes } from '../domain/animes.js';
import { animeCard } from '../domain/cards.js';
import { indexEntries } from '../domain/index-reader.js';
import { explicitTest, sfwExclusions } from '../domain/sfw.js';
import { calendarText, type CalendarAnime } from '../domain/calendar.js';
import { recordsWith } from './titles.js';
import { Deleted, tombstoneKey } from '../db/tombstones.js';
import { scheduleSortKey, slotted } from '../domain/schedules.js';
import type { Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { acceptsGzip, inShapeOrder } from './represent.js';

const CARD = Object.keys(animeCard.shape);

export const scheduleList: Operation = async (req) => {
  const q = req.query as unknown as { day?: string; tz?: string; sfw?: boolean; ordering: { key: string; descending: boolean } };
  const now = clock().getTime();
  const direction = q.ordering.descending ? 'desc' : 'asc';
  // `sfw=true` (§8.3): the explicit genres and themes come with a tombstone shard, read beside the index.
  const excluded = q.sfw === true ? getItems([tombstoneKey(req.requestId)]).then(([tomb]) => sfwExclusions('ANIME', new Deleted(tomb))) : undefined;
  const entries = (await indexEntries(animes.title.index, excluded)).map(scheduleEntryOf);
  const sorted = entries
    .map((e) => ({ e, s: slotted(e, now, q.tz ?? null) }))
    .filter(({ s }) => q.day === undefined || s.day === q.day)
    .map((x) => ({ ...x, sk: scheduleSortKey(q.ordering.key, x.e, x.s, direction) }))
    .sort((a, b) => compareCodePoints(a.sk, b.sk) * (q.ordering.descending ? -1 : 1));
  const page = pageOf(sorted, q.ordering.descending, pageLimit(req), req.query.cursor ?? null);
  const found = await getItems(page.kept.map(({ e }) => recordKeyOfKind(animes.title.entity.kind, e.id)));
  // An anime deleted since the deltas were read is left out.
  const items = page.kept.flatMap(({ s }, i) => (found[i] ? [{ anime: inShapeOrder((found[i] as Item).rec, CARD), ...s }] : []));
  return pageReply(req, { items, next: page.next, previous: page.previous }, sorted.length);
};

const MINUTE_MS = 60_000;
const WEEK_MS = 7 * 24 * 60 * MINUTE_MS;
/** The calendar's window starts at the last multiple of its max-age: the same text, and ETag, for that long (§8.6). */
const WINDOW_STEP_MS = 5 * MINUTE_MS;
/** What the calendar reads of an anime named by `anime=`. */
const AIRING = ['id', 'name', 'status', 'broadcast', 'aired_from', 'aired_to', 'episodes', 'duration_seconds', 'rating', 'genres', 'themes'];

/**
 * `GET /api/schedules/calendar.ics` (API.md §8.6): each anime's episodes from now until `weeks`
 * ahead as iCalendar events (shared/domain/calendar.ts). Without `anime`, the airing animes'
 * entries of the anime index (one Query of its deltas, as the schedule); with it, those animes'
 * records (one BatchGetItem with the tombstones: an upcoming anime's first episodes too; unknown
 * and deleted ids are left out). Gzipped when the client accepts it.
 */
export const scheduleCalendar: Operation = async (req) => {
  const q = req.query as unknown as { anime?: string[]; tz?: string; weeks?: number; sfw?: boolean };
  const from = Math.floor(clock().getTime() / WINDOW_STEP_MS) * WINDOW_STEP_MS;
  const to = from + (q.weeks ?? 4) * WEEK_MS;
  const url = (id: string) => `${req.baseUrl}/api/${animes.segment}/${id}/`;
  let shown: CalendarAnime[];
  if (q.anime) {
    const { records, deleted } = await recordsWith(animes, q.anime, AIRING, req.requestId, []);
    const unsafe = q.sfw === true ? explicitTest(deleted) : () => false;
    shown = (records as AnimeRecord[]).filter((r) => !unsafe(r)).map((r) => ({ id: r.id, name: r.name, url: url(r.id), airing: r, duration_seconds: r.duration_seconds }));
  } else {
    const excluded = q.sfw === true ? getItems([tombstoneKey(req.requestId)]).then(([tomb]) => sfwExclusions('ANIME', new Deleted(tomb))) : undefined;
    shown = (await indexEntries(animes.title.index, excluded)).map((row) => {
      const e = scheduleEntryOf(row);
      return { id: e.id, name: e.name, url: url(e.id), airing: e, duration_seconds: entryDuration(row) };
    });
  }
  const text = Buffer.from(calendarText(shown, q.tz ?? 'Asia/Tokyo', from, to, from));
  const gzip = acceptsGzip(req.headers['accept-encoding']);
  return {
    status: 200,
    content: { bytes: gzip ? gzipSync(text) : text, type: 'text/calendar; charset=utf-8', ...(gzip ? { encoding: 'gzip' as const } : {}) },
    headers: { vary: 'Accept-Encoding' },
  };
};
