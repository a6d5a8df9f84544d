/**
 * Recommendations as the endpoints show them (API.md §4.1.2, §4.14, §4.5): the item shapes and the
 * limits. The two kinds are in modules of their own (anime-recommendations.ts,
 * manga-recommendations.ts), so that a function of one kind carries nothing of the other's
 * titles; the job that computes them is recommendations-job.ts.
 */
import * as z from 'zod/mini';
import type { BaseRecord } from '../db/records.js';
import type { PlaylistKind } from './playlists.js';
import type { TitleResource } from './title-resource.js';

/** A list item is high when its score is at least this (§5.4). */
export const HIGH_SCORE = 7;
/** A title B is a per-title recommendation of A only with at least this many votes(A, B) (§5.4: fewer would show what one user's private list holds). */
export const MIN_VOTES = 3;

/** A kind of recommendations: the titles (representation, index) and the lists (the caller's seeds). */
export interface RecommendationKind {
  name: 'anime' | 'manga';
  titles: TitleResource<BaseRecord>;
  list: PlaylistKind;
}


/** Recommendations of a personalised or popular list (§7.1). */
export const PER_CALLER = 100;
/** Seeds of a personalised list: the caller's most recently updated high or favourite items (§5.4). */
export const SEEDS = 50;

/** `GET /api/{animes|mangas}/{id}/recommendations/`: the title + `votes`. */
export const perTitleItem = (kind: RecommendationKind) => z.extend(kind.titles.read, { votes: z.int() });
/** `GET /api/recommendations/{anime|manga}/`: the title + `votes` (null for popular) and `source`. */
export const recommendedItem = (kind: RecommendationKind) => z.extend(kind.titles.read, { votes: z.nullable(z.int()), source: z.enum(['personalized', 'popular']) });
export const refreshedAt = { refreshed_at: z.nullable(z.string().check(z.meta({ format: 'date-time' }))) };
