/**
 * Characters (API.md §3.5, §4.2): write shape, the detail and list item shapes, list options,
 * and how a write becomes a stored record. A character links nothing itself: its appearances and
 * voices are written on the animes and mangas and shown in the detail as reverse views.
 */
import * as z from 'zod/mini';
import { characterTitle, type CharacterRecord } from '../db/characters.js';
import { CharacterRole, Language } from './enums.js';
import { enumParam, idParam } from './params.js';
import { distinctList, line, optional, optionalNullable, optionalText, required, text, url } from './fields.js';
import { characterViews } from './reverse-views.js';
import type { TitleResource } from './title-resource.js';

const characterFields = {
  name: required(line({ min: 1, max: 255 })),
  name_kanji: optionalText(line({ max: 255 })),
  nicknames: optional(distinctList(line({ min: 1, max: 100 }), { max: 20, message: 'Duplicate nickname.' }), () => []),
  about: optionalText(text({ max: 10_000 })),
  image: optionalNullable(url()),
};

const timestamp = z.string().check(z.meta({ format: 'date-time' }));
const ref = z.object({ id: z.string(), name: z.string() });

export const characterListItem = z.object({
  id: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  name: z.string(),
  name_kanji: z.string(),
  nicknames: z.array(z.string()),
  about: z.string(),
  image: z.nullable(z.string().check(z.meta({ format: 'uri' }))),
  favorites: z.int(),
  members: z.int(),
});

const appearance = z.extend(ref, { role: z.enum(CharacterRole) });
const characterRead = z.extend(characterListItem, {
  animes: z.array(appearance),
  mangas: z.array(appearance),
  voices: z.array(z.object({ person: ref, language: z.enum(Language), anime: ref })),
});

export const characters: TitleResource<CharacterRecord> = {
  segment: 'characters',
  noun: 'character',
  title: characterTitle,
  writer: 'contributor',
  fields: characterFields,
  read: characterRead,
  listRead: characterListItem,
  list: {
    orderings: ['name', 'favorites', 'members', 'created_at'],
    // The index's posting lists follow the default ordering (catalogue-index.ts).
    defaultOrdering: characterTitle.index.listOrder,
    search: true,
    relevance: true,
    filters: { anime: idParam, manga: idParam, role: enumParam(CharacterRole) },
    references: { anime: 'ANIME', manga: 'MANGA' },
    // §4.2: with `anime` or `manga`, `role` is the role in that title.
    combine: ({ role, ...equals }) => {
      if (role === undefined || (equals.anime === undefined && equals.manga === undefined)) return role === undefined ? equals : { ...equals, role };
      const out: Record<string, string> = {};
      if (equals.anime !== undefined) out.anime_role = `${equals.anime}:${role}`;
      if (equals.manga !== undefined) out.manga_role = `${equals.manga}:${role}`;
      return out;
    },
  },
  writable: (r) => ({ name: r.name, name_kanji: r.name_kanji, nicknames: r.nicknames, about: r.about, image: r.image }),
  build: async (v, meta, before) => ({
    record: {
      id: meta.id,
      created_at: meta.created_at,
      updated_at: meta.updated_at,
      name: v.name as string,
      name_kanji: v.name_kanji as string,
      nicknames: v.nicknames as string[],
      about: v.about as string,
      image: v.image as string | null,
      favorites: before?.record.favorites ?? 0,
      members: before?.record.members ?? 0,
      // Kept by the catalogue consumer from the casts (reverse-views.ts); not shown.
      appearances: before?.record.appearances ?? [],
    },
    relations: {},
  }),
  views: characterViews,
};
