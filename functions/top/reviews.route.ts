/** The declaration of `top.reviews` (its function: reviews.ts). */
import * as z from 'zod/mini';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { REVIEW_PAGE_READS } from '../../shared/db/reviews.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { titleKeys } from '../../shared/db/titles.js';
import { ReviewKind } from '../../shared/domain/enums.js';
import { ANIME_REVIEWS, MANGA_REVIEWS, REVIEW_FIELDS, reviewRead } from '../../shared/domain/reviews.js';
import { defineRoute } from '../../shared/http/route.js';
import { booleanParam, enumParam } from '../../shared/domain/params.js';

export const route = defineRoute({
  name: 'top.reviews', method: 'GET', path: '/api/top/reviews/', access: 'public',
  summary: 'Top reviews', description: 'Every review by `helpful_count` desc, `created_at` desc, then `id`. `count` is null.',
  query: z.object({ kind: enumParam(ReviewKind), spoilers: booleanParam }),
  response: { status: 200, schema: reviewRead, page: true, fields: REVIEW_FIELDS },
  // The top entries, the reviews and their titles' records, the tombstones.
  keys: grants(REVIEW_PAGE_READS, grant([titleKeys(ANIME_REVIEWS.title), titleKeys(MANGA_REVIEWS.title)], 'BatchGetItem'), TOMBSTONE_READS),
});
