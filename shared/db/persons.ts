/**
 * Persons (API.md §3.6): a title entity (titles.ts) without unique fields, its written pictures
 * kept in chunks, and the search, filter and order index of `GET /api/persons/`
 * (catalogue-index.ts). Their credits are written on the animes and mangas (the reverse view
 * of the detail).
 */
import type { IndexDef } from './catalogue-index.js';
import type { BaseRecord, EntityDef } from './records.js';
import type { TitleDef } from './titles.js';

export interface PersonRecord extends BaseRecord {
  name: string;
  given_name: string;
  family_name: string;
  alternate_names: string[];
  image: string | null;
  birthday: string | null;
  about: string;
  website: string | null;
  language: string;
  category: string;
  favorites: number;
}

export const PERSON_RELATIONS = ['pictures'] as const;

export const personEntity: EntityDef<PersonRecord> = {
  kind: 'PERSON',
  // Lists are served by the in-memory index (catalogue-index.ts IndexDef), not by records.ts ordering entries.
  orderings: {},
  referenced: true,
};

export const personIndex: IndexDef<PersonRecord> = {
  kind: 'PERSON',
  listOrder: 'name',
  relevance: 'favorites',
  orderings: {
    name: { value: (r) => r.name, type: 'text' },
    birthday: { value: (r) => r.birthday, type: 'plain' },
    favorites: { value: (r) => r.favorites, type: 'count' },
    created_at: { value: (r) => r.created_at, type: 'plain' },
  },
  filters: {
    category: (r) => [r.category],
    language: (r) => [r.language],
  },
  searchFields: (r) => [r.name, r.given_name, r.family_name, ...r.alternate_names],
  // The rankings job's number (rankings.ts), published through the compactor's patch.
  ranked: { o: ['favorites'], x: [] },
};

export const personTitle: TitleDef<PersonRecord> = { entity: personEntity, index: personIndex, relations: PERSON_RELATIONS, random: true };
