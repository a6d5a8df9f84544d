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
  /**
   * Not shown: the character's appearances as `ANIME#<id>#<role>` / `MANGA#<id>#<role>`, kept by
   * the relations consumer from the casts; the `anime`, `manga` and `role` filters index them.
   */
  appearances?: string[];
}

export const characterEntity: EntityDef<CharacterRecord> = {
  kind: 'CHARACTER',
  // Lists are served by the in-memory index (catalogue-index.ts IndexDef), not by records.ts ordering entries.
  orderings: {},
  referenced: true,
};

const appearing = (r: CharacterRecord, kind: string) =>
  (r.appearances ?? []).map((t) => t.split('#')).filter(([k]) => k === kind).map(([, id, role]) => ({ id: id!, role: role! }));

export const characterIndex: IndexDef<CharacterRecord> = {
  kind: 'CHARACTER',
  listOrder: 'name',
  relevance: 'favorites',
  orderings: {
    name: { value: (r) => r.name, type: 'text' },
    favorites: { value: (r) => r.favorites, type: 'count' },
    members: { value: (r) => r.members, type: 'count' },
    created_at: { value: (r) => r.created_at, type: 'plain' },
  },
  // §4.2: `role` with `anime`/`manga` means that role in that title (anime_role, manga_role).
  filters: {
    anime: (r) => appearing(r, 'ANIME').map((a) => a.id),
    manga: (r) => appearing(r, 'MANGA').map((a) => a.id),
    role: (r) => [...new Set((r.appearances ?? []).map((t) => t.split('#')[2]!))].sort(),
    anime_role: (r) => appearing(r, 'ANIME').map((a) => `${a.id}:${a.role}`),
    manga_role: (r) => appearing(r, 'MANGA').map((a) => `${a.id}:${a.role}`),
  },
  searchFields: (r) => [r.name, r.name_kanji, ...r.nicknames],
  // The rankings job's numbers (rankings.ts), published through the compactor's patch.
  ranked: { o: ['favorites', 'members'], x: [] },
};

export const characterTitle: TitleDef<CharacterRecord> = { entity: characterEntity, index: characterIndex, relations: [], random: true };
