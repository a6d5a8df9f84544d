/**
 * `GET /api/schedules/` (API.md §4.15): the weekly schedule of the airing animes. Their entries
 * come from the anime index held in memory (shared/domain/index-reader.ts indexEntries: an
 * airing anime's vector carries what the schedule needs of it, so a change of `status` or
 * `broadcast` shows once its write returns) — one Query of the deltas since the function's last
 * request — then are slotted at the time of the response (§5.3), filtered by `day`, ordered and
 * cut in memory; the page's anime cards are read from the records (one BatchGetItem), so a
 * card's `score` is current (§1.8). `count` is exact. Two rounds.
 */
import { getItems, type Item } from '../db/batch.js';
import { pageOf } from '../db/catalogue-index.js';
import { scheduleEntryOf } from '../db/animes.js';
import { recordKeyOfKind } from '../db/records.js';
import { compareCodePoints } from '../db/sort-keys.js';
import { clock } from '../clock.js';
import { animes } from '../domain/animes.js';
import { animeCard } from '../domain/cards.js';
import { indexEntries } from '../domain/index-reader.js';
import { sfwExclusions } from '../domain/sfw.js';
import { Deleted, tombstoneKey } from '../db/tombstones.js';
import { scheduleSortKey, slotted } from '../domain/schedules.js';
import type { Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { inShapeOrder } from './represent.js';

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
