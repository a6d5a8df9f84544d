/** The front page (API.md §4.5): seasons, their animes, recent reviews, news and the caller's anime recommendations. */
import * as z from 'zod/mini';
import { newsTitle } from '../../shared/db/news.js';
import { ANIME_LIST } from '../../shared/domain/playlists.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { listPartitionKeys } from '../../shared/db/playlists.js';
import { RECOMMENDATION_KEYS } from '../../shared/db/recommendations.js';
import { REVIEW_PAGE_READS } from '../../shared/db/reviews.js';
import { titleKeys } from '../../shared/db/titles.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { animeTitle } from '../../shared/db/animes.js';
import { animeCard } from '../../shared/domain/cards.js';
import { news } from '../../shared/domain/news.js';
import { reviewRead } from '../../shared/domain/reviews.js';
import { Season } from '../../shared/domain/enums.js';
import { indexReads } from '../../shared/domain/index-reader.js';
import { defineRoute } from '../../shared/http/route.js';

const season = z.object({ year: z.int(), season: z.enum(Season) });

export const routes = {
  get: defineRoute({
    name: 'home.get', method: 'GET', path: '/api/home/', access: 'public',
    summary: 'Retrieve the home information',
    description: 'Every key always present, computed per request; `anime_recommendations` are the first 8 of `GET /api/recommendations/anime/` for the same caller.',
    response: {
      status: 200,
      schema: z.object({
        seasons: z.object({ current: season, upcoming: season }),
        current_season: z.array(animeCard),
        upcoming_season: z.array(animeCard),
        anime_reviews: z.array(reviewRead),
        latest_news: z.array(news.listRead!),
        anime_recommendations: z.array(animeCard),
      }),
    },
    // Personalised with a token: private to the caller (Vary: Authorization).
    cache: 'public-vary',
    // The seasons' animes and the latest news (the anime and news indexes, then the records), the
    // recent reviews, the stored recommendations and the caller's list vectors, the tombstones.
    uses: ['index-read'],
    keys: grants(
      grant([titleKeys(animeTitle), titleKeys(newsTitle)], 'BatchGetItem'),
      indexReads('ANIME', 'NEWS'),
      REVIEW_PAGE_READS,
      grant(RECOMMENDATION_KEYS, 'BatchGetItem'),
      grant(listPartitionKeys(ANIME_LIST), 'Query'),
      TOMBSTONE_READS,
    ),
  }),
};
