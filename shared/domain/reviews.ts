/**
 * Reviews (API.md §3.9): the read shape, as lists of reviews return it. Reviews themselves come
 * with the reviews feature; until then the lists of a user's reviews are empty (docs/decisions.md).
 */
import * as z from 'zod';
import { ReviewKind, ReviewTag } from './enums.js';

const timestamp = z.string().meta({ format: 'date-time' });

export const reviewRead = z.object({
  id: z.string(),
  kind: z.enum(ReviewKind),
  entry: z.object({ id: z.string(), name: z.string(), image: z.string().nullable() }),
  user: z.object({ id: z.string(), username: z.string() }),
  rating: z.number().int(),
  comment: z.string(),
  is_spoiler: z.boolean(),
  tags: z.array(z.enum(ReviewTag)),
  helpful_count: z.number().int(),
  created_at: timestamp,
  updated_at: timestamp,
});
export const REVIEW_FIELDS = Object.keys(reviewRead.shape);

/** `ordering` keys of review lists and their default (§4.1.2, §4.21.4). */
export const REVIEW_ORDERINGS = ['created_at', 'helpful_count', 'rating'] as const;
export const REVIEW_DEFAULT_ORDERING = '-created_at';
