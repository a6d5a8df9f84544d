/**
 * Persons (API.md §3.6, §4.9): write shape, the detail and list item shapes, list options, and
 * how a write becomes a stored record with its pictures, which keep their ids by `url` (§3.2,
 * media.ts) and are read through `GET /api/persons/{id}/pictures/`; pictures uploaded through
 * `create-picture` carry their file's key, queued for removal when a write or the deletion drops
 * them (shared/db/files.ts). A person links nothing
 * itself: its credits are written on the animes and mangas and shown in the detail as a reverse
 * view.
 */
import * as z from 'zod/mini';
import { goneFilesPlan } from '../db/files.js';
import { personTitle, type PersonRecord } from '../db/persons.js';
import { enumParam } from './params.js';
import { Language, PersonCategory } from './enums.js';
import { date, distinctList, line, oneOf, optional, optionalNullable, optionalText, required, text, url } from './fields.js';
import { droppedFiles, keepPictures, picturesField, writtenPictures, type Picture } from './media.js';
import { personViews } from './reverse-views.js';
import type { TitleResource } from './title-resource.js';

const personFields = {
  name: required(line({ min: 1, max: 255 })),
  given_name: optionalText(line({ max: 255 })),
  family_name: optionalText(line({ max: 255 })),
  alternate_names: optional(distinctList(line({ min: 1, max: 255 }), { max: 20, message: 'Duplicate name.' }), () => []),
  image: optionalNullable(url()),
  birthday: optionalNullable(date({ min: '1800-01-01', max: 'today' })),
  about: optionalText(text({ max: 10_000 })),
  website: optionalNullable(url({ allowHttp: true })),
  language: optional(oneOf(Language), () => 'japanese'),
  category: optional(oneOf(PersonCategory), () => 'other'),
  pictures: picturesField,
};

const timestamp = z.string().check(z.meta({ format: 'date-time' }));
const nullableUrl = z.nullable(z.string().check(z.meta({ format: 'uri' })));

export const personListItem = z.object({
  id: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  name: z.string(),
  given_name: z.string(),
  family_name: z.string(),
  alternate_names: z.array(z.string()),
  image: nullableUrl,
  birthday: z.nullable(z.string().check(z.meta({ format: 'date' }))),
  about: z.string(),
  website: nullableUrl,
  language: z.enum(Language),
  category: z.enum(PersonCategory),
  favorites: z.int(),
});

const personRead = z.extend(personListItem, {
  staff_credits: z.array(z.object({ anime: z.object({ id: z.string(), name: z.string() }), positions: z.array(z.string()) })),
});

export const persons: TitleResource<PersonRecord> = {
  segment: 'persons',
  noun: 'person',
  title: personTitle,
  writer: 'contributor',
  fields: personFields,
  read: personRead,
  listRead: personListItem,
  list: {
    orderings: ['name', 'birthday', 'favorites', 'created_at'],
    // The index's posting lists follow the default ordering (catalogue-index.ts).
    defaultOrdering: personTitle.index.listOrder,
    search: true,
    relevance: true,
    filters: { category: enumParam(PersonCategory), language: enumParam(Language) },
  },
  writable: (r, rel) => ({
    name: r.name,
    given_name: r.given_name,
    family_name: r.family_name,
    alternate_names: r.alternate_names,
    image: r.image,
    birthday: r.birthday,
    about: r.about,
    website: r.website,
    language: r.language,
    category: r.category,
    pictures: writtenPictures(rel.pictures as Picture[]),
  }),
  build: async (v, meta, before) => ({
    record: {
      id: meta.id,
      created_at: meta.created_at,
      updated_at: meta.updated_at,
      name: v.name as string,
      given_name: v.given_name as string,
      family_name: v.family_name as string,
      alternate_names: v.alternate_names as string[],
      image: v.image as string | null,
      birthday: v.birthday as string | null,
      about: v.about as string,
      website: v.website as string | null,
      language: v.language as string,
      category: v.category as string,
      favorites: before?.record.favorites ?? 0,
    },
    relations: { pictures: keepPictures(v.pictures as Record<string, unknown>[], (before?.relations.pictures ?? []) as Picture[], meta.updated_at) },
  }),
  views: personViews,
  // Uploaded files of pictures that a write or the deletion drops go to the cleanup job (§4.9).
  extraPlan: (before, after) =>
    goneFilesPlan(droppedFiles((before?.relations.pictures ?? []) as Picture[], after ? (after.relations.pictures as Picture[]) : null)),
};
