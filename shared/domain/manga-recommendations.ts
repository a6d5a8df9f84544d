/** The manga recommendations (recommendations.ts): manga titles, seeded by the caller's manga list. */
import type { BaseRecord } from '../db/records.js';
import { mangas } from './mangas.js';
import { MANGA_LIST } from './playlists.js';
import type { RecommendationKind } from './recommendations.js';
import type { TitleResource } from './title-resource.js';

export const MANGA_RECOMMENDATIONS: RecommendationKind = { name: 'manga', titles: mangas as unknown as TitleResource<BaseRecord>, list: MANGA_LIST };
