/**
 * Reviews of animes and mangas and their helpful votes (API.md §3.9, §4.1.3, §4.20, §4.21.4):
 * the two kinds as data, the write rules, the read shape and the orderings of review lists.
 * Storage: shared/db/reviews.ts; operations: shared/http/reviews.ts.
 */
import * as z from 'zod/mini';
import { animeTitle } from '../db/animes.js';
import { mangaTitle } from '../db/mangas.js';
import type { BaseRecord, Ordering } from '../db/records.js';
import type { TitleDef } from '../db/titles.js';
import { reviewEntry } from './cards.js';
import { ReviewKind, ReviewTag } from './enums.js';
import { distinctList, oneOf, optional, required, text, writeSchemas, type FieldSpecs } from './fields.js';

export interface ReviewKindDef {
  /** The review's `kind` (§3.1 ReviewKind). */
  kind: (typeof ReviewKind)[number];
  /** The reviewed title's record kind and its collection's path segment. */
  titleKind: 'ANIME' | 'MANGA';
  segment: 'animes' | 'mangas';
  title: TitleDef<BaseRecord>;
}

export const ANIME_REVIEWS: ReviewKindDef = { kind: 'anime', titleKind: 'ANIME', segment: 'animes', title: animeTitle as unknown as TitleDef<BaseRecord> };
export const MANGA_REVIEWS: ReviewKindDef = { kind: 'manga', titleKind: 'MANGA', segment: 'mangas', title: mangaTitle as unknown as TitleDef<BaseRecord> };
export const REVIEW_KINDS = [ANIME_REVIEWS, MANGA_REVIEWS] as const;
export const reviewKindOf = (titleKind: string): ReviewKindDef | undefined => REVIEW_KINDS.find((k) => k.titleKind === titleKind);

// ---- Writes (§3.9)

/** The three tags exclude each other (§3.9: at most one of them), so a review has at most one. */
const tags = distinctList(oneOf(ReviewTag), { max: ReviewTag.length, message: 'Duplicate tag.' }).check(z.refine((t) => t.length <= 1, {
  message: 'At most one of recommended, mixed_feelings, not_recommended.',
}));

export const reviewFields: FieldSpecs = {
  rating: required(z.int().check(z.gte(1), z.lte(10))),
  comment: required(text({ min: 20, max: 10_000 })),
  is_spoiler: optional(z.boolean(), () => false),
  tags: optional(tags, () => []),
};
export const reviewBodies = { create: writeSchemas(reviewFields).full, patch: writeSchemas(reviewFields).partial };

/** The vote (§3.9): exactly `{"helpful": boolean}`, from anyone but the author. */
export const VOTE_FIELD = 'helpful';
/** What `PATCH` takes, for the OpenAPI document: the author's edit, or a vote by anyone else. */
export const reviewPatchBody = z.union([reviewBodies.patch, z.strictObject({ [VOTE_FIELD]: z.boolean() })]);

/** A review as stored (its author's username, its title's summary and its helpful votes are added when read). */
export interface ReviewRecord extends BaseRecord {
  kind: (typeof ReviewKind)[number];
  title_id: string;
  user_id: string;
  rating: number;
  comment: string;
  is_spoiler: boolean;
  tags: string[];
}

// ---- Reads

const timestamp = z.string().check(z.meta({ format: 'date-time' }));

export const reviewRead = z.object({
  id: z.string(),
  kind: z.enum(ReviewKind),
  entry: reviewEntry,
  user: z.object({ id: z.string(), username: z.string() }),
  rating: z.int(),
  comment: z.string(),
  is_spoiler: z.boolean(),
  tags: z.array(z.enum(ReviewTag)),
  helpful_count: z.int(),
  created_at: timestamp,
  updated_at: timestamp,
});
export const REVIEW_FIELDS = Object.keys(reviewRead.shape);

/** The Review representation: the record with its title's summary, its author and its helpful votes. */
export function reviewView(r: ReviewRecord, helpful: number, title: { id: string; name: string; image: string | null }, username: string) {
  return {
    id: r.id,
    kind: r.kind,
    entry: { id: title.id, name: title.name, image: title.image },
    user: { id: r.user_id, username },
    rating: r.rating,
    comment: r.comment,
    is_spoiler: r.is_spoiler,
    tags: r.tags,
    helpful_count: helpful,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** `ordering` keys of review lists and their default (§4.1.2, §4.21.4). */
export const REVIEW_ORDERINGS = ['created_at', 'helpful_count', 'rating'] as const;
export const REVIEW_DEFAULT_ORDERING = '-created_at';

/** A review with its number of helpful votes: what its list entries are ordered by. */
export type CountedReview = ReviewRecord & { helpful_count: number };

/**
 * The orderings of a title's and a user's review lists (§4.1.2, §4.21.4): each review has an
 * entry per ordering and direction in its title's and in its author's list (shared/db/reviews.ts
 * reviewEntries), keyed as the catalogue index keys its ordering entries (sort-keys.ts), so a page
 * is a Query from the cursor with `Limit`.
 */
export const REVIEW_LIST_ORDERINGS: Record<(typeof REVIEW_ORDERINGS)[number], Ordering<CountedReview>> = {
  created_at: { value: (r) => r.created_at, type: 'plain' },
  helpful_count: { value: (r) => r.helpful_count, type: 'count' },
  rating: { value: (r) => r.rating, type: 'count' },
};
