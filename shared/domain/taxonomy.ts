/**
 * Genres, themes, demographics, magazines and producers (API.md §3.7, §4.3, §4.4, §4.6, §4.11,
 * §4.18): write shapes, read shapes, list options and the producer `type` rule.
 */
import * as z from 'zod/mini';
import {
  demographicEntity,
  genreEntity,
  magazineEntity,
  producerEntity,
  themeEntity,
  type DemographicRecord,
  type GenreRecord,
  type MagazineRecord,
  type ProducerCredits,
  type ProducerRecord,
  type ThemeRecord,
} from '../db/taxonomy.js';
import { conflict } from '../problem.js';
import { enumParam } from './params.js';
import { ProducerType } from './enums.js';
import { date, line, oneOf, optional, optionalNullable, optionalText, required, text, url } from './fields.js';
import type { Resource } from './resource.js';

const meta = {
  id: z.string(),
  created_at: z.string().check(z.meta({ format: 'date-time' })),
  updated_at: z.string().check(z.meta({ format: 'date-time' })),
};
const count = z.int().check(z.gte(0));

const genreLike = {
  name: required(line({ min: 1, max: 50 }), 'Unique among its kind, case-insensitively.'),
  description: optionalText(text({ max: 1000 })),
};

/** Genres and themes (not demographics) can be explicit (API.md §8.3). */
const genreFields = {
  ...genreLike,
  explicit: optional(z.boolean(), () => false, 'Titles with an explicit genre or theme are left out by `sfw=true`.'),
};

const genreRead = z.object({
  id: meta.id,
  name: z.string(),
  description: z.string(),
  explicit: z.boolean(),
  anime_count: count,
  manga_count: count,
  created_at: meta.created_at,
  updated_at: meta.updated_at,
});

function genreLikeResource(segment: string, noun: string, entity: typeof genreEntity): Resource<GenreRecord> {
  return {
    segment,
    noun,
    entity,
    writer: 'contributor',
    fields: genreFields,
    read: genreRead,
    list: { orderings: ['name', 'anime_count', 'manga_count', 'created_at'], defaultOrdering: 'name', search: true, liveRecords: true },
    toRecord: (v, m, prev) => ({
      id: m.id,
      name: v.name as string,
      description: v.description as string,
      // A record a version before 6 wrote has none until the migration gives it `false` (a PATCH meanwhile does too).
      explicit: (v.explicit as boolean | undefined) ?? false,
      anime_count: prev?.anime_count ?? 0,
      manga_count: prev?.manga_count ?? 0,
      created_at: m.created_at,
      updated_at: m.updated_at,
    }),
  };
}

export const genres = genreLikeResource('genres', 'genre', genreEntity);
export const themes: Resource<ThemeRecord> = genreLikeResource('themes', 'theme', themeEntity);

export const demographics: Resource<DemographicRecord> = {
  segment: 'demographics',
  noun: 'demographic',
  entity: demographicEntity,
  writer: 'contributor',
  fields: genreLike,
  read: z.object({
    id: meta.id,
    name: z.string(),
    description: z.string(),
    manga_count: count,
    created_at: meta.created_at,
    updated_at: meta.updated_at,
  }),
  list: { orderings: ['name', 'manga_count', 'created_at'], defaultOrdering: 'name', search: true, liveRecords: true },
  toRecord: (v, m, prev) => ({
    id: m.id,
    name: v.name as string,
    description: v.description as string,
    manga_count: prev?.manga_count ?? 0,
    created_at: m.created_at,
    updated_at: m.updated_at,
  }),
};

export const magazines: Resource<MagazineRecord> = {
  segment: 'magazines',
  noun: 'magazine',
  entity: magazineEntity,
  writer: 'contributor',
  fields: { name: required(line({ min: 1, max: 255 }), 'Unique, case-insensitively.') },
  read: z.object({ id: meta.id, name: z.string(), manga_count: count, created_at: meta.created_at, updated_at: meta.updated_at }),
  list: { orderings: ['name', 'manga_count', 'created_at'], defaultOrdering: 'name', search: true, liveRecords: true },
  toRecord: (v, m, prev) => ({
    id: m.id,
    name: v.name as string,
    manga_count: prev?.manga_count ?? 0,
    created_at: m.created_at,
    updated_at: m.updated_at,
  }),
};

export const producers: Resource<ProducerRecord> = {
  segment: 'producers',
  noun: 'producer',
  entity: producerEntity,
  writer: 'contributor',
  fields: {
    name: required(line({ min: 1, max: 255 }), 'Unique, case-insensitively.'),
    name_jpn: optionalText(line({ max: 255 })),
    type: required(oneOf(ProducerType)),
    about: optionalText(text({ max: 5000 })),
    established: optionalNullable(date({ min: '1800-01-01', max: 'today' })),
    image: optionalNullable(url()),
    website: optionalNullable(url({ allowHttp: true })),
  },
  read: z.object({
    id: meta.id,
    name: z.string(),
    name_jpn: z.string(),
    type: z.enum(ProducerType),
    about: z.string(),
    established: z.nullable(z.string().check(z.meta({ format: 'date' }))),
    image: z.nullable(z.string().check(z.meta({ format: 'uri' }))),
    website: z.nullable(z.string().check(z.meta({ format: 'uri' }))),
    anime_count: count,
    created_at: meta.created_at,
    updated_at: meta.updated_at,
  }),
  list: {
    orderings: ['name', 'established', 'anime_count', 'created_at'],
    defaultOrdering: 'name',
    search: true,
    filters: { type: enumParam(ProducerType) },
    liveRecords: true,
  },
  toRecord: (v, m, prev) => ({
    id: m.id,
    name: v.name as string,
    name_jpn: v.name_jpn as string,
    type: v.type as string,
    about: v.about as string,
    established: v.established as string | null,
    image: v.image as string | null,
    website: v.website as string | null,
    anime_count: prev?.anime_count ?? 0,
    created_at: m.created_at,
    updated_at: m.updated_at,
  }),
  // Kept by anime writes (shared/domain/animes.ts): how many animes credit it in each role.
  privateDefaults: () => ({ studio_credits: 0, producer_credits: 0, licensor_credits: 0 }) satisfies ProducerCredits,
  checkChange(before, after) {
    if (!before || before.record.type === after.type) return;
    const credits = (before.priv ?? {}) as ProducerCredits;
    const held = before.record.type;
    if ((held === 'studio' && (credits.studio_credits ?? 0) > 0) || (held === 'licensor' && (credits.licensor_credits ?? 0) > 0)) {
      throw conflict('type', `The producer is credited as ${held} on animes; its type cannot change.`);
    }
  },
};
