/**
 * Mangas (API.md §3.4): a title entity (titles.ts) with a unique name, the search and filter
 * index of `GET /api/mangas/` and `GET /api/genres/{id}/mangas/` (catalogue-index.ts), and the
 * written arrays kept in chunks (`characters`, `pictures`). Authors are embedded in the record
 * (`{id, name, role}` in written order): at most 20, and the list filters by them.
 */
import { MangaListStatus } from '../domain/enums.js';
import { uniquenessKey } from '../text.js';
import { externalIdClaims, MANGA_SITES, type ExternalIds } from './external-ids.js';
import type { Ref } from './animes.js';
import { linkedValue, type IndexDef } from './catalogue-index.js';
import type { BaseRecord, EntityDef } from './records.js';
import { RANKED_FIELDS, rankedOrderings, scoreNumber, type TitleDef } from './titles.js';

export interface Author extends Ref {
  role: string;
}

export interface MangaRecord extends BaseRecord {
  name: string;
  name_jpn: string;
  name_rom: string;
  alternative_names: string[];
  image: string | null;
  synopsis: string;
  background: string;
  media_type: string;
  status: string;
  chapters: number | null;
  volumes: number | null;
  published_from: string | null;
  published_to: string | null;
  authors: Author[];
  serializations: Ref[];
  genres: Ref[];
  themes: Ref[];
  demographics: Ref[];
  website: string | null;
  /** API.md §8.2; absent in records written before it (read as `{}`). */
  external_ids?: ExternalIds;
  score: number | null;
  scored_by: number;
  members: number;
  favorites: number;
  rank: number | null;
  popularity: number | null;
}

/** `characters`: MangaCharacterWrite entries (`{character_id, role}`) as written; `pictures`: Picture records. */
export const MANGA_RELATIONS = ['characters', 'pictures'] as const;

const ids = (refs: readonly Ref[]) => refs.map((r) => r.id);

export const mangaEntity: EntityDef<MangaRecord> = {
  kind: 'MANGA',
  // Lists are served by the in-memory index (catalogue-index.ts IndexDef), not by records.ts ordering entries.
  orderings: {},
  referenced: true,
  unique: [{ field: 'name', key: (r) => uniquenessKey(r.name), message: 'A manga with this name already exists.' }, ...externalIdClaims<MangaRecord>(MANGA_SITES, 'A manga')],
};

/** The value of a manga's `author_role` filter: a person credited in one AuthorRole. */
export const authorRole = (personId: string, role: string) => linkedValue(personId, role);
const authorRoles = (r: MangaRecord) => r.authors.map((a) => authorRole(a.id, a.role));

export const mangaIndex: IndexDef<MangaRecord> = {
  kind: 'MANGA',
  listOrder: 'name',
  relevance: 'members',
  orderings: rankedOrderings<MangaRecord>({ key: 'published_from', value: (r) => r.published_from }),
  filters: {
    media_type: (r) => [r.media_type],
    status: (r) => [r.status],
    genre: (r) => ids(r.genres),
    theme: (r) => ids(r.themes),
    demographic: (r) => ids(r.demographics),
    magazine: (r) => ids(r.serializations),
    // Credited in any AuthorRole (authors are distinct by person).
    author: (r) => ids(r.authors),
    // Credited in one AuthorRole (GET /api/persons/{id}/mangas/?role=…).
    author_role: (r) => authorRoles(r),
  },
  numbers: { score: scoreNumber() },
  ranked: RANKED_FIELDS,
  searchFields: (r) => [r.name, r.name_jpn, r.name_rom, ...r.alternative_names],
};

export const mangaTitle: TitleDef<MangaRecord> = { entity: mangaEntity, index: mangaIndex, relations: MANGA_RELATIONS, listStatuses: MangaListStatus, random: true };
