/**
 * Declarations of the recommendation lists (API.md §4.1.2, §4.14), one builder per list for both
 * kinds; handlers: shared/http/recommendations.ts.
 */
import * as z from 'zod/mini';
import { grant, grants } from '../db/key-patterns.js';
import { listPartitionKeys } from '../db/playlists.js';
import { RECOMMENDATION_KEYS } from '../db/recommendations.js';
import { titleKeys } from '../db/titles.js';
import { TOMBSTONE_READS } from '../db/tombstones.js';
import { perTitleItem, recommendedItem, refreshedAt, type RecommendationKind } from '../domain/recommendations.js';
import { indexReads } from '../domain/index-reader.js';
import { defineRoute } from './route.js';
import { sfwParam } from '../domain/params.js';

const plural = (kind: RecommendationKind) => `${kind.name}s`;

/** `GET /api/{animes|mangas}/{id}/recommendations/`. */
export function titleRecommendationsRoute<const K extends RecommendationKind>(kind: K) {
  const item = perTitleItem(kind);
  return defineRoute({
    name: `${plural(kind)}.recommendations`, method: 'GET', path: `/api/${plural(kind)}/{id}/recommendations/`, access: 'public',
    summary: 'List its recommendations', query: z.object({ sfw: sfwParam }),
    description: `The ${kind.name}s most often listed high (score ≥ 7) by the users who list this one high, by votes desc, then score desc, then name (§5.4); at most 50, as computed by the last run of the recommendations job (\`refreshed_at\`, null before the first run).`,
    response: { status: 200, schema: item, page: true, fields: Object.keys(item.shape), envelope: refreshedAt },
    errors: ['not-found'],
    // The title and the listed titles' records, the stored list and the job's state, the tombstones.
    keys: grants(grant([titleKeys(kind.titles.title), RECOMMENDATION_KEYS], 'BatchGetItem'), TOMBSTONE_READS),
  });
}

/** `GET /api/recommendations/{anime|manga}/`. */
export function recommendedRoute<const K extends RecommendationKind>(kind: K) {
  const item = recommendedItem(kind);
  return defineRoute({
    name: `recommendations.${kind.name}`, method: 'GET', path: `/api/recommendations/${kind.name}/`, access: 'public',
    summary: `${kind.name === 'anime' ? 'Anime' : 'Manga'} recommendations`, query: z.object({ sfw: sfwParam }),
    description:
      'Personalised with a valid token (the summed votes of the stored recommendations of your 50 most recently updated high or favourite items, without the titles on your list); otherwise, or without candidates, the most popular titles (§5.4). At most 100; `count` is null; `refreshed_at` is the last run of the recommendations job.',
    response: { status: 200, schema: item, page: true, fields: Object.keys(item.shape), envelope: refreshedAt },
    // Personalised: private to the caller (Vary: Authorization).
    cache: 'public-vary',
    // The titles' records and their index (popularity), the stored lists and the job's state, the caller's list vectors, the tombstones.
    uses: ['index-read'],
    keys: grants(grant(titleKeys(kind.titles.title), 'BatchGetItem'), indexReads(kind.titles.title.entity.kind), grant(RECOMMENDATION_KEYS, 'BatchGetItem'), grant(listPartitionKeys(kind.list), 'Query'), TOMBSTONE_READS),
  });
}
