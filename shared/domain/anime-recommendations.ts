/** The anime recommendations (recommendations.ts): anime titles, seeded by the caller's anime list. */
import type { BaseRecord } from '../db/records.js';
import { animes } from './animes.js';
import { ANIME_LIST } from './playlists.js';
import type { RecommendationKind } from './recommendations.js';
import type { TitleResource } from './title-resource.js';

export const ANIME_RECOMMENDATIONS: RecommendationKind = { name: 'anime', titles: animes as unknown as TitleResource<BaseRecord>, list: ANIME_LIST };
