/**
 * News articles (API.md §3.8, §4.8): write shape, the detail and list item shapes (the detail
 * without `content`), list options, and how a write becomes a stored record — the animes and
 * mangas it names checked against their records (§1.2 "References") and kept as `Ref`s in written
 * order (§1.8), the author taken from the caller at creation and never changed afterwards.
 * Also the `news/` sub-resources of animes and mangas (§4.1.2, §4.7).
 */
import * as z from 'zod/mini';
import { newsTitle, type NewsRecord } from '../db/news.js';
import { enumParam, idParam } from './params.js';
import { NewsTag } from './enums.js';
import { idList, line, oneOf, optional, optionalNullable, optionalText, required, text, url } from './fields.js';
import { checkReferences, type Reference } from './references.js';
import type { LinkedListing, TitleResource } from './title-resource.js';

const newsFields = {
  name: required(line({ min: 1, max: 200 }), 'The headline.'),
  description: optionalText(text({ max: 500 })),
  content: required(text({ min: 1, max: 50_000 })),
  image: optionalNullable(url()),
  source: optionalNullable(url({ allowHttp: true })),
  tag: optional(oneOf(NewsTag), () => 'pending'),
  anime_ids: optional(idList(50), () => []),
  manga_ids: optional(idList(50), () => []),
};

const timestamp = z.string().check(z.meta({ format: 'date-time' }));
const nullableUrl = z.nullable(z.string().check(z.meta({ format: 'uri' })));
const ref = z.object({ id: z.string(), name: z.string() });

const newsRead = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  content: z.string(),
  image: nullableUrl,
  source: nullableUrl,
  tag: z.enum(NewsTag),
  author: z.nullable(z.object({ id: z.string(), username: z.string() })),
  animes: z.array(ref),
  mangas: z.array(ref),
  created_at: timestamp,
  updated_at: timestamp,
});

const newsListItem = z.omit(newsRead, { content: true });

/** The animes and mangas a write names, each at its field path. */
const references = (v: Record<string, unknown>): Reference[] => [
  ...(v.anime_ids as string[]).map((id, i) => ({ path: `anime_ids.${i}`, kind: 'ANIME', id, noun: 'anime' })),
  ...(v.manga_ids as string[]).map((id, i) => ({ path: `manga_ids.${i}`, kind: 'MANGA', id, noun: 'manga' })),
];

export const news: TitleResource<NewsRecord> = {
  segment: 'news',
  noun: 'news article',
  title: newsTitle,
  writer: 'moderator',
  fields: newsFields,
  read: newsRead,
  listRead: newsListItem,
  // `content` is stored with the record; only list items leave it out. No reverse views.
  list: {
    orderings: ['created_at', 'name'],
    // The index's posting lists follow the default ordering (catalogue-index.ts).
    defaultOrdering: newsTitle.index.listOrder,
    search: true,
    relevance: true,
    filters: { tag: enumParam(NewsTag), anime: idParam, manga: idParam },
    references: { anime: 'ANIME', manga: 'MANGA' },
  },
  writable: (r) => ({
    name: r.name,
    description: r.description,
    content: r.content,
    image: r.image,
    source: r.source,
    tag: r.tag,
    anime_ids: r.animes.map((a) => a.id),
    manga_ids: r.mangas.map((m) => m.id),
  }),
  references,
  // `author` is null once the account is deleted (§3.8): at once through the tombstone, then stored.
  embedded: { animes: 'ANIME', mangas: 'MANGA', author: 'USER' },
  async build(v, meta, before, check = checkReferences) {
    const { errors, names } = await check(references(v));
    if (Object.keys(errors).length > 0) return { errors };
    const refs = (kind: string, field: string) => (v[field] as string[]).map((id) => ({ id, name: names.get(`${kind}#${id}`)! }));
    // The author is the caller at creation (§3.8) and never changes.
    const author = before ? before.record.author : meta.caller ? { id: meta.caller.user_id, username: meta.caller.username } : null;
    const record: NewsRecord = {
      id: meta.id,
      name: v.name as string,
      description: v.description as string,
      content: v.content as string,
      image: v.image as string | null,
      source: v.source as string | null,
      tag: v.tag as string,
      author,
      animes: refs('ANIME', 'anime_ids'),
      mangas: refs('MANGA', 'manga_ids'),
      created_at: meta.created_at,
      updated_at: meta.updated_at,
    };
    return { record, relations: {} };
  },
};

/** `GET /api/{animes|mangas}/{id}/news/`: the articles whose `animes` (`mangas`) include the parent. */
const newsOf = (parent: { kind: string; noun: string }, filter: 'anime' | 'manga'): LinkedListing<NewsRecord> => ({
  resource: news,
  parent,
  filter,
  orderings: news.list.orderings,
  defaultOrdering: news.list.defaultOrdering,
  filters: { tag: enumParam(NewsTag) },
  param: 'tag',
});

export const animeNews = newsOf({ kind: 'ANIME', noun: 'anime' }, 'anime');
export const mangaNews = newsOf({ kind: 'MANGA', noun: 'manga' }, 'manga');
