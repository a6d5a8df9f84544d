/**
 * News articles (API.md §3.8, §4.8): a title entity (titles.ts) without unique fields or written
 * arrays, and what its in-memory index holds for `GET /api/news/` (catalogue-index.ts IndexDef).
 * The filters `anime` and `manga` also answer `GET /api/{animes|mangas}/{id}/news/`, with the
 * evaluation's exact count (shared/http/linked-titles.ts); `author` is internal: it lets account
 * deletion find the articles a user wrote.
 */
import type { Ref } from './animes.js';
import { type IndexDef } from './catalogue-index.js';
import type { BaseRecord, EntityDef } from './records.js';
import type { TitleDef } from './titles.js';

export interface UserRef {
  id: string;
  username: string;
}

/** The stored record is the detail shape (`content` included; list items leave it out). */
export interface NewsRecord extends BaseRecord {
  name: string;
  description: string;
  content: string;
  image: string | null;
  source: string | null;
  tag: string;
  author: UserRef | null;
  animes: Ref[];
  mangas: Ref[];
}

const ids = (refs: readonly Ref[]) => refs.map((r) => r.id);

export const newsEntity: EntityDef<NewsRecord> = {
  kind: 'NEWS',
  // Lists are served by the catalogue index, not by records.ts ordering entries.
  orderings: {},
};

export const newsIndex: IndexDef<NewsRecord> = {
  kind: 'NEWS',
  listOrder: '-created_at',
  relevance: 'created_at',
  orderings: {
    created_at: { value: (r) => r.created_at, type: 'plain' },
    name: { value: (r) => r.name, type: 'text' },
  },
  filters: {
    tag: (r) => [r.tag],
    anime: (r) => ids(r.animes),
    manga: (r) => ids(r.mangas),
    // Not a query parameter: the articles of an account (account deletion sets `author` to null).
    author: (r) => (r.author ? [r.author.id] : []),
  },
  searchFields: (r) => [r.name, r.description],
};

export const newsTitle: TitleDef<NewsRecord> = { entity: newsEntity, index: newsIndex, relations: [] };
