/**
 * Characters (API.md §3.5): a title entity (titles.ts) without unique fields or written arrays,
 * and the search and order index of `GET /api/characters/` (catalogue-index.ts). Its appearances
 * and voices are written on the animes and mangas (the reverse views of the detail).
 */
import type { IndexDef } from './catalogue-index.js';
import type { BaseRecord, EntityDef } from './records.js';
import type { TitleDef } from './titles.js';

export interface CharacterRecord extends BaseRecord {
  name: string;
  name_kanji: string;
  nicknames: string[];
  about: string;
  image: string | null;
  favorites: number;
  members: number;
}

export const characterEntity: EntityDef<CharacterRecord> = {
  kind: 'CHARACTER',
  // Lists are served by the catalogue index, not by records.ts ordering entries.
  orderings: {},
};

export const characterIndex: IndexDef<CharacterRecord> = {
  kind: 'CHARACTER',
  orderings: {
    name: { value: (r) => r.name, type: 'text' },
    favorites: { value: (r) => r.favorites, type: 'count' },
    members: { value: (r) => r.members, type: 'count' },
    created_at: { value: (r) => r.created_at, type: 'plain' },
  },
  // The `anime`, `manga` and `role` filters of §4.2 come from the animes' and mangas' casts.
  filters: {},
  postings: {},
  searchFields: (r) => [r.name, r.name_kanji, ...r.nicknames],
};

export const characterTitle: TitleDef<CharacterRecord> = { entity: characterEntity, index: characterIndex, relations: [] };
