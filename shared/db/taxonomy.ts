/**
 * The taxonomy entities (API.md §3.7): genres, themes, demographics, magazines, producers.
 * Each is a records.ts entity with a unique name (case-insensitive) and the orderings of its
 * list; producers also carry `type` on their ordering items for the `type` filter, and keep the
 * number of credits per role privately (a producer credited as studio cannot stop being one).
 */
import { uniquenessKey } from '../text.js';
import type { BaseRecord, EntityDef, Ordering } from './records.js';

export interface NamedRecord extends BaseRecord {
  name: string;
}
export interface GenreRecord extends NamedRecord {
  description: string;
  /** Titles with an explicit genre or theme are left out by `sfw=true` (API.md §8.3). */
  explicit: boolean;
  anime_count: number;
  manga_count: number;
}
export type ThemeRecord = GenreRecord;
export interface DemographicRecord extends NamedRecord {
  description: string;
  manga_count: number;
}
export interface MagazineRecord extends NamedRecord {
  manga_count: number;
}
export interface ProducerRecord extends NamedRecord {
  name_jpn: string;
  type: string;
  about: string;
  established: string | null;
  image: string | null;
  website: string | null;
  anime_count: number;
}

function named<R extends NamedRecord>(
  kind: string,
  noun: string,
  orderings: Record<string, Ordering<R>>,
  extra: Partial<EntityDef<R>> = {},
): EntityDef<R> {
  return {
    kind,
    orderings: {
      name: { value: (r) => r.name, type: 'text' },
      created_at: { value: (r) => r.created_at, type: 'plain' },
      ...orderings,
    },
    unique: [{ field: 'name', key: (r) => uniquenessKey(r.name), message: `A ${noun} with this name already exists.` }],
    searchFields: (r) => [r.name],
    // Titles embed taxonomy records as Refs.
    referenced: true,
    ...extra,
  };
}

const animeCount = { value: (r: { anime_count: number }) => r.anime_count, type: 'count' } as const;
const mangaCount = { value: (r: { manga_count: number }) => r.manga_count, type: 'count' } as const;

const explicitFlag = { explicit: (r: GenreRecord) => r.explicit === true };
export const genreEntity = named<GenreRecord>('GENRE', 'genre', { anime_count: animeCount, manga_count: mangaCount }, explicitFlag);
export const themeEntity = named<ThemeRecord>('THEME', 'theme', { anime_count: animeCount, manga_count: mangaCount }, explicitFlag);
export const demographicEntity = named<DemographicRecord>('DEMOGRAPHIC', 'demographic', { manga_count: mangaCount });
export const magazineEntity = named<MagazineRecord>('MAGAZINE', 'magazine', { manga_count: mangaCount });
export const producerEntity = named<ProducerRecord>(
  'PRODUCER',
  'producer',
  { established: { value: (r) => r.established, type: 'plain' }, anime_count: animeCount },
  { searchFields: (r) => [r.name, r.name_jpn], filterAttributes: (r) => ({ type: r.type }) },
);

/**
 * Private counters of a producer: how many animes credit it in each role (exact immediately,
 * like `anime_count`, which counts any role; they are the `count` of
 * `GET /api/producers/{id}/animes/?role=…`).
 */
export interface ProducerCredits {
  studio_credits?: number;
  producer_credits?: number;
  licensor_credits?: number;
}

/** The private counter of a producer role (ProducerRole). */
export const creditsOfRole = (role: string): keyof ProducerCredits => `${role}_credits` as keyof ProducerCredits;
