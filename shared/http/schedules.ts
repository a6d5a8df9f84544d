/**
 * `GET /api/schedules/` (API.md §4.15): the weekly schedule of the airing animes. Their entries
 * are the `schedule` digest of the anime index (one compact item per airing anime, written in the
 * anime's own write: a change of `status` or `broadcast` shows at once), read whole — about a
 * thousand at MyAnimeList's size, one Query page — then slotted at the time of the response
 * (§5.3), filtered by `day`, ordered and cut in memory; the page's anime cards are read from the
 * records (one BatchGetItem), so a card's `score` is current (§1.8). `count` is exact. Two calls.
 */
import { getItems, type Item } from '../db/batch.js';
import { pageOf, readDigest } from '../db/catalogue-index.js';
import type { ScheduleEntry } from '../db/animes.js';
import { recordKeyOfKind } from '../db/records.js';
import { compareCodePoints } from '../db/sort-keys.js';
import { clock } from '../clock.js';
import { animes } from '../domain/animes.js';
import { animeCard } from '../domain/cards.js';
import { scheduleSortKey, slotted } from '../domain/schedules.js';
import type { Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { inShapeOrder } from './represent.js';

const CARD = Object.keys(animeCard.shape);

export const scheduleList: Operation = async (req) => {
  const q = req.query as unknown as { day?: string; tz?: string; ordering: { key: string; descending: boolean } };
  const now = clock().getTime();
  const direction = q.ordering.descending ? 'desc' : 'asc';
  const entries = (await readDigest(animes.title.index, 'schedule')) as unknown as ScheduleEntry[];
  const sorted = entries
    .map((e) => ({ e, s: slotted(e, now, q.tz ?? null) }))
    .filter(({ s }) => q.day === undefined || s.day === q.day)
    .map((x) => ({ ...x, sk: scheduleSortKey(q.ordering.key, x.e, x.s, direction) }))
    .sort((a, b) => compareCodePoints(a.sk, b.sk) * (q.ordering.descending ? -1 : 1));
  const page = pageOf(sorted, q.ordering.descending, pageLimit(req), req.query.cursor ?? null);
  const found = await getItems(page.kept.map(({ e }) => recordKeyOfKind(animes.title.entity.kind, e.id)));
  // An anime deleted since its entry was read is left out.
  const items = page.kept.flatMap(({ s }, i) => (found[i] ? [{ anime: inShapeOrder((found[i] as Item).rec, CARD), ...s }] : []));
  return pageReply(req, { items, next: page.next, previous: page.previous }, sorted.length);
};
