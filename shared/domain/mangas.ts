/**
 * Mangas (API.md §3.4, §4.7): write shape, read shape, list options, and how a write becomes a
 * stored record — references checked against the records they name (§1.2 "References"), with
 * their names; authors embedded in written order; pictures keeping their ids by `url` (§3.2,
 * media.ts); the manga's characters kept as written (they feed `GET /api/mangas/{id}/characters/`
 * and the characters' `mangas`); and the `manga_count` of linked genres, themes, demographics
 * and magazines (§3.7, exact in the write's own transaction).
 */
import type { LinkedTitles } from './listings.js';
import * as z from 'zod/mini';
import { mangaTitle, type MangaRecord } from '../db/mangas.js';
import type { Relations } from '../db/titles.js';
import { addError, fieldErrors } from '../problem.js';
import { enumParam, idParam, scoreParam } from './params.js';
import { AuthorRole, CharacterRole, MangaMediaType, MangaStatus } from './enums.js';
import { date, dateOrderErrors, distinctList, id, idList, line, oneOf, optional, optionalNullable, required } from './fields.js';
import { keepPictures, writtenPictures, type Picture } from './media.js';
import { checkReferences, linkCounts, type Reference } from './references.js';
import type { TitleResource } from './title-resource.js';
import { externalIdParams, externalIdsField, externalIdsRead, titleFields, titleRead } from './title-fields.js';
import { MANGA_SITES, externalIdField, type ExternalIds } from '../db/external-ids.js';

const authorWrite = z.strictObject({ person_id: id(), role: oneOf(AuthorRole) });
const characterWrite = z.strictObject({ character_id: id(), role: oneOf(CharacterRole) });
const published = () => optionalNullable(date({ min: '1900-01-01', max: '2100-12-31' }));

// §3.4: these fields are "exactly as for Anime".
const { name_jpn, name_rom, alternative_names, image, synopsis, background, website, genre_ids, theme_ids, pictures } = titleFields;

export const mangaFields = {
  name: required(line({ min: 1, max: 255 }), 'Unique among mangas, case-insensitively.'),
  name_jpn,
  name_rom,
  alternative_names,
  image,
  synopsis,
  background,
  media_type: optional(oneOf(MangaMediaType), () => 'manga'),
  status: optional(oneOf(MangaStatus), () => 'upcoming'),
  chapters: optionalNullable(z.int().check(z.gte(1), z.lte(100_000))),
  volumes: optionalNullable(z.int().check(z.gte(1), z.lte(1_000))),
  published_from: published(),
  published_to: published(),
  website,
  external_ids: externalIdsField(MANGA_SITES),
  genre_ids,
  theme_ids,
  demographic_ids: optional(idList(5), () => []),
  magazine_ids: optional(idList(10), () => []),
  authors: optional(distinctList(authorWrite, { max: 20, key: (a) => a.person_id, field: 'person_id', message: 'Duplicate person.' }), () => []),
  characters: optional(distinctList(characterWrite, { max: 500, key: (c) => c.character_id, field: 'character_id', message: 'Duplicate character.' }), () => []),
  pictures,
};

const a = titleRead;

/** §3.4: list items and detail are identical. */
export const mangaRead = z.object({
  id: a.id,
  created_at: a.created_at,
  updated_at: a.updated_at,
  name: a.name,
  name_jpn: a.name_jpn,
  name_rom: a.name_rom,
  alternative_names: a.alternative_names,
  image: a.image,
  synopsis: a.synopsis,
  background: a.background,
  media_type: z.enum(MangaMediaType),
  status: z.enum(MangaStatus),
  chapters: z.nullable(z.int()),
  volumes: z.nullable(z.int()),
  published_from: a.from,
  published_to: a.to,
  authors: z.array(z.object({ id: z.string(), name: z.string(), role: z.enum(AuthorRole) })),
  serializations: a.genres,
  genres: a.genres,
  themes: a.themes,
  demographics: a.genres,
  website: a.website,
  external_ids: externalIdsRead(MANGA_SITES),
  score: a.score,
  scored_by: a.scored_by,
  members: a.members,
  favorites: a.favorites,
  rank: a.rank,
  popularity: a.popularity,
});

interface AuthorWrite {
  person_id: string;
  role: string;
}

/** The references of a manga's write, each at its field path. */
function references(v: Record<string, unknown>): Reference[] {
  const list = (field: string, kind: string, noun: string) => (v[field] as string[]).map((id, i) => ({ path: `${field}.${i}`, kind, id, noun }));
  return [
    ...list('genre_ids', 'GENRE', 'genre'),
    ...list('theme_ids', 'THEME', 'theme'),
    ...list('demographic_ids', 'DEMOGRAPHIC', 'demographic'),
    ...list('magazine_ids', 'MAGAZINE', 'magazine'),
    ...(v.authors as AuthorWrite[]).map((w, i) => ({ path: `authors.${i}.person_id`, kind: 'PERSON', id: w.person_id, noun: 'person' })),
    ...(v.characters as { character_id: string }[]).map((c, i) => ({ path: `characters.${i}.character_id`, kind: 'CHARACTER', id: c.character_id, noun: 'character' })),
  ];
}

/** Each linked record with what it counts of this manga (§3.7 `manga_count`). */
function linked(r: MangaRecord | null): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  if (!r) return out;
  const count = { 'rec.manga_count': 1 };
  for (const g of r.genres) out.set(`GENRE#${g.id}`, count);
  for (const t of r.themes) out.set(`THEME#${t.id}`, count);
  for (const d of r.demographics) out.set(`DEMOGRAPHIC#${d.id}`, count);
  for (const m of r.serializations) out.set(`MAGAZINE#${m.id}`, count);
  return out;
}

export const mangas: TitleResource<MangaRecord> = {
  segment: 'mangas',
  noun: 'manga',
  title: mangaTitle,
  writer: 'contributor',
  fields: mangaFields,
  read: mangaRead,
  list: {
    orderings: ['name', 'published_from', 'score', 'members', 'favorites', 'rank', 'popularity', 'created_at', 'updated_at'],
    // The index's posting lists follow the default ordering (catalogue-index.ts).
    defaultOrdering: mangaTitle.index.listOrder,
    search: true,
    relevance: true,
    filters: {
      media_type: enumParam(MangaMediaType),
      status: enumParam(MangaStatus),
      genre: idParam,
      theme: idParam,
      demographic: idParam,
      magazine: idParam,
      author: idParam,
      min_score: scoreParam,
      ...externalIdParams(MANGA_SITES),
    },
    references: { genre: 'GENRE', theme: 'THEME', demographic: 'DEMOGRAPHIC', magazine: 'MAGAZINE', author: 'PERSON' },
    ranges: { min_score: 'score' },
    sfw: 'MANGA',
    lookups: Object.fromEntries(MANGA_SITES.map((site) => [`${site}_id`, externalIdField(site)])),
  },
  writable: (r, rel) => ({
    ...Object.fromEntries(Object.keys(mangaFields).filter((k) => k in r).map((k) => [k, (r as unknown as Record<string, unknown>)[k]])),
    genre_ids: r.genres.map((g) => g.id),
    theme_ids: r.themes.map((t) => t.id),
    demographic_ids: r.demographics.map((d) => d.id),
    magazine_ids: r.serializations.map((m) => m.id),
    authors: r.authors.map((w) => ({ person_id: w.id, role: w.role })),
    external_ids: r.external_ids ?? {},
    characters: rel.characters,
    pictures: writtenPictures(rel.pictures as Picture[]),
  }),
  async build(v, meta, before, check = checkReferences) {
    const errors = fieldErrors();
    dateOrderErrors(errors, v, 'published_from', 'published_to');
    const { errors: refErrors, names } = await check(references(v));
    for (const [path, messages] of Object.entries(refErrors)) for (const m of messages) addError(errors, path, m);
    if (Object.keys(errors).length > 0) return { errors };
    const refs = (kind: string, field: string) => (v[field] as string[]).map((id) => ({ id, name: names.get(`${kind}#${id}`)! }));
    const prev = before?.record;
    const record: MangaRecord = {
      id: meta.id,
      created_at: meta.created_at,
      updated_at: meta.updated_at,
      name: v.name as string,
      name_jpn: v.name_jpn as string,
      name_rom: v.name_rom as string,
      alternative_names: v.alternative_names as string[],
      image: v.image as string | null,
      synopsis: v.synopsis as string,
      background: v.background as string,
      media_type: v.media_type as string,
      status: v.status as string,
      chapters: v.chapters as number | null,
      volumes: v.volumes as number | null,
      published_from: v.published_from as string | null,
      published_to: v.published_to as string | null,
      authors: (v.authors as AuthorWrite[]).map((w) => ({ id: w.person_id, name: names.get(`PERSON#${w.person_id}`)!, role: w.role })),
      serializations: refs('MAGAZINE', 'magazine_ids'),
      genres: refs('GENRE', 'genre_ids'),
      themes: refs('THEME', 'theme_ids'),
      demographics: refs('DEMOGRAPHIC', 'demographic_ids'),
      website: v.website as string | null,
      external_ids: v.external_ids as ExternalIds,
      score: prev?.score ?? null,
      scored_by: prev?.scored_by ?? 0,
      members: prev?.members ?? 0,
      favorites: prev?.favorites ?? 0,
      rank: prev?.rank ?? null,
      popularity: prev?.popularity ?? null,
    };
    const relations: Relations = {
      characters: v.characters as unknown[],
      pictures: keepPictures(v.pictures as Record<string, unknown>[], (before?.relations.pictures ?? []) as Picture[], meta.updated_at),
    };
    return { record, relations };
  },
  links: (before, after) => linkCounts(linked(before), linked(after)),
  references,
  // A record written before §8.2 has no external ids: shown as none.
  present: (r) => ({ ...r, external_ids: r.external_ids ?? {} }),
  embedded: { genres: 'GENRE', themes: 'THEME', demographics: 'DEMOGRAPHIC', serializations: 'MAGAZINE', authors: 'PERSON' },
};

/** `GET /api/genres/{id}/mangas/` (§4.4): the mangas with the genre; exact count from the genre's `manga_count`. */
export const genreMangas: LinkedTitles<MangaRecord> = {
  titles: mangas,
  parent: { kind: 'GENRE', noun: 'genre' },
  filter: (id) => ({ genre: id }),
  count: (genre) => Number((genre.rec as { manga_count?: number }).manga_count ?? 0),
};
