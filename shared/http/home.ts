/**
 * `GET /api/home/` (API.md §4.5): the front page's sections, computed per request, every key
 * always present. In parallel:
 *  - the current and upcoming seasons (§5.2): the first 12 animes of each by `members` desc, then
 *    name — the index's `members`, as `GET /api/seasons/…?ordering=-members` orders them — from
 *    the anime index in memory (shared/domain/index-reader.ts: the deltas since the last request);
 *  - the 6 newest non-spoiler anime reviews (the recent partition, shared/db/reviews.ts);
 *  - the 6 newest news articles (the head of the news index's `created_at` ordering, in memory);
 *  - the first 8 of the caller's anime recommendations (§4.14: personalised with a valid token,
 *    else popular).
 * Each section's records are read as soon as what names them is (one BatchGetItem for the
 * season animes, one for the news, the reviews' and the recommendations'). About 10 calls in 2
 * rounds (round 1: the tombstones, the indexes' deltas, the reviews' partition), each bounded
 * whatever the catalogue's size (docs/data-model.md "Per-request read ceilings").
 */
import { animeIndex, HOME_ORDERING, yearSeason } from '../db/animes.js';
import { newsIndex } from '../db/news.js';
import { indexPage, indexPages } from '../domain/index-reader.js';
import { clock } from '../clock.js';
import { animes } from '../domain/animes.js';
import { animeCard } from '../domain/cards.js';
import { news } from '../domain/news.js';
import { ANIME_RECOMMENDATIONS } from '../domain/anime-recommendations.js';
import { ANIME_REVIEWS } from '../domain/reviews.js';
import { seasonNow, seasonUpcoming, type SeasonOfYear } from '../domain/seasons.js';
import type { Operation } from './handler.js';
import { firstRecommendations, listKeys } from './recommendations.js';
import { newestReviews } from './reviews.js';
import { readKnown, recordsOf, shapeKeys } from './titles.js';
import { Deleted } from '../db/tombstones.js';

/** Items per section (§4.5, §7.1). */
export const HOME_SIZES = { season: 12, reviews: 6, news: 6, recommendations: 8 } as const;

const CARD = Object.keys(animeCard.shape);

/** The first `n` animes of each season by `members` desc, then N(name), then id: the anime index's pages in the ordering of that order (HOME_ORDERING), over one read of it. */
async function seasonHeads(seasons: readonly [SeasonOfYear, SeasonOfYear], n: number): Promise<[string[], string[]]> {
  const pages = await indexPages(
    animeIndex,
    seasons.map((s) => ({ ordering: HOME_ORDERING, descending: false, limit: n, cursor: null, terms: [], equals: { year_season: yearSeason(s.year, s.season) } })),
  );
  const [now, next] = pages.map((p) => p.entries.map((e) => e.id));
  return [now!, next!];
}

/** The newest `n` news articles: the head of the news index's `created_at` ordering, descending. */
async function newestNews(n: number): Promise<string[]> {
  const page = await indexPage(newsIndex, { ordering: 'created_at', descending: true, limit: n, cursor: null, terms: [], equals: {} });
  return page.entries.map((e) => e.id);
}

export const homeOperation: Operation = async (req) => {
  const at = clock();
  const current = seasonNow(at);
  const upcoming = seasonUpcoming(at);
  // Round 1, at once: the tombstones (and the recommendations job's state) with the caller's auth
  // state when signed in, the anime and news indexes' deltas, the newest reviews' partition.
  const first = readKnown(req, listKeys(req));
  const deleted = first.then((items) => new Deleted(items[1]));
  const heads = seasonHeads([current, upcoming], HOME_SIZES.season);
  const newsIds = newestNews(HOME_SIZES.news);
  // Round 2: each section's records as soon as what names them is read.
  const [[[nowIds, nextIds], cards], reviews, articles, recommendations] = await Promise.all([
    Promise.all([heads, deleted]).then(async ([[now, next], d]) => [[now, next], await recordsOf(animes, [...new Set([...now, ...next])], CARD, d)] as const),
    newestReviews(ANIME_REVIEWS, HOME_SIZES.reviews, deleted),
    Promise.all([newsIds, deleted]).then(([ids, d]) => recordsOf(news, ids, shapeKeys(news).item, d)),
    firstRecommendations(ANIME_RECOMMENDATIONS, req, first, HOME_SIZES.recommendations, CARD),
  ]);
  const byId = new Map(cards.map((c) => [c.id, c]));
  const cardsOf = (ids: readonly string[]) => ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  return {
    status: 200,
    body: {
      seasons: { current, upcoming },
      current_season: cardsOf(nowIds),
      upcoming_season: cardsOf(nextIds),
      anime_reviews: reviews,
      latest_news: articles,
      anime_recommendations: recommendations,
    },
  };
};
// With a token, the job's state and the tombstones are read with the caller's auth state.
homeOperation.prefetch = listKeys;
