/**
 * `GET /api/home/` (API.md §4.5): the front page's sections, computed per request, every key
 * always present. In parallel:
 *  - the current and upcoming seasons (§5.2): each season's posting list read whole (as the
 *    season lists do), its animes ordered by `members` desc, then name — the index's `members`,
 *    as `GET /api/seasons/…?ordering=-members` orders them — the first 12 of each;
 *  - the 6 newest non-spoiler anime reviews (the recent partition, shared/db/reviews.ts);
 *  - the 6 newest news articles (the head of the news index's `created_at` ordering);
 *  - the first 8 of the caller's anime recommendations (§4.14: personalised with a valid token,
 *    else popular).
 * Then the cards' records (one BatchGetItem for the animes, one for the news). About 8 calls in
 * 3 rounds, whatever the catalogue's size.
 */
import { yearSeason, animeIndex } from '../db/animes.js';
import { orderingHead, readPostings, type Vector } from '../db/catalogue-index.js';
import { newsIndex } from '../db/news.js';
import { compareCodePoints } from '../db/sort-keys.js';
import { clock } from '../clock.js';
import { animes } from '../domain/animes.js';
import { animeCard } from '../domain/cards.js';
import { news } from '../domain/news.js';
import { ANIME_RECOMMENDATIONS } from '../domain/anime-recommendations.js';
import { ANIME_REVIEWS } from '../domain/reviews.js';
import { seasonNow, seasonUpcoming, type SeasonOfYear } from '../domain/seasons.js';
import { searchNormalize } from '../text.js';
import type { Operation } from './handler.js';
import { firstRecommendations, listKeys, readKnown } from './recommendations.js';
import { newestReviews } from './reviews.js';
import { recordsOf, shapeKeys } from './titles.js';
import { Deleted } from '../db/tombstones.js';

/** Items per section (§4.5, §7.1). */
export const HOME_SIZES = { season: 12, reviews: 6, news: 6, recommendations: 8 } as const;

const CARD = Object.keys(animeCard.shape);

/** The first `n` animes of a season by `members` desc, then N(name), then id. */
async function seasonHead(s: SeasonOfYear, n: number): Promise<string[]> {
  const postings = await readPostings(animeIndex, 'year_season', yearSeason(s.year, s.season));
  const members = (v: Vector) => Number(v.o.members ?? 0);
  const name = new Map(postings.map((v) => [v.id, searchNormalize(String(v.o.name ?? ''))]));
  return postings
    .sort((a, b) => members(b) - members(a) || compareCodePoints(name.get(a.id)!, name.get(b.id)!) || compareCodePoints(a.id, b.id))
    .slice(0, n)
    .map((v) => v.id);
}

export const homeOperation: Operation = async (req) => {
  const at = clock();
  const current = seasonNow(at);
  const upcoming = seasonUpcoming(at);
  // The tombstones (and the recommendations job's state) with the caller's auth state when signed in.
  const first = readKnown(req, listKeys(req));
  const deleted = new Deleted((await first)[1]);
  const [nowIds, nextIds, reviews, newsIds, recommendations] = await Promise.all([
    seasonHead(current, HOME_SIZES.season),
    seasonHead(upcoming, HOME_SIZES.season),
    newestReviews(ANIME_REVIEWS, HOME_SIZES.reviews, deleted),
    orderingHead(newsIndex, 'created_at', { descending: true, limit: HOME_SIZES.news }),
    firstRecommendations(ANIME_RECOMMENDATIONS, req, first, HOME_SIZES.recommendations, CARD),
  ]);
  const [cards, articles] = await Promise.all([
    recordsOf(animes, [...new Set([...nowIds, ...nextIds])], CARD, deleted),
    recordsOf(news, newsIds.map((e) => e.id), shapeKeys(news).item, deleted),
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
